//! The sweeps' `--plot FILE.png` option: the flag, its early path check, and writing the chart
//! it asks for. `plot` draws; this module knows the runner's options.
use super::{Flag, Options};
use crate::plot::{Chart, Series};
use ferrocuda::{Error, Result};
use std::path::Path;

/// Fails, before a sweep runs, when the directory of the `--plot` file does not exist (the
/// chart is drawn only after minutes of measurements on a GPU).
pub fn check_path(options: &Options) -> Result<()> {
    let Some(path) = options.value("--plot") else {
        return Ok(());
    };
    match Path::new(path).parent() {
        Some(dir) if !dir.as_os_str().is_empty() && !dir.is_dir() => Err(Error::InvalidArgument(format!(
            "the directory of the --plot file {path} does not exist"
        ))),
        _ => Ok(()),
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
};
