//! The sweeps' `--plot FILE.png` option: the flag, its early path check, and writing the chart
//! it asks for. `plot` draws; this module knows the runner's options.
use super::{Flag, Options};
use crate::plot::{Chart, Series};
use ferrocuda::Result;
use std::path::Path;

/// Fails, before a sweep runs, when the `--plot` file cannot be written (its directory is
/// missing or refuses a new file): the chart is drawn only after minutes of measurements.
pub fn check_path(options: &Options) -> Result<()> {
    match options.value("--plot") {
        Some(path) => crate::plot::staging_file(Path::new(path)).map(drop),
        None => Ok(()),
    }
}

/// Writes `series` as `chart` to the file `--plot` names, if it was given, and says where.
pub fn write_if_asked(options: &Options, chart: &Chart, series: &[Series]) -> Result<()> {
    if let Some(path) = options.value("--plot") {
        chart.write(path, series)?;
        println!("plot written to {path}");
    }
    Ok(())
}

/// The `--plot FILE.png` flag of the sweeps.
pub const FLAG: Flag = Flag {
    name: "--plot",
    value: Some("FILE.png"),
    help: "also draw the sweep as a PNG line chart",
    requires: None,
};
