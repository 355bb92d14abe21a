//! The sweeps' `--plot FILE.png` option ([`PlotOption`], checked when the command line is parsed),
//! and writing the chart it asks for. `plot` draws; this module knows the runner's options.
use crate::plot::{Chart, Series};
use ferrocuda::Result;
use std::path::{Path, PathBuf};

/// The chart `name` of a `--plot PREFIX.png` option: `PREFIX-name.png` (`out/sor.png` and
/// `speedup` make `out/sor-speedup.png`).
pub fn prefixed(prefix: &str, name: &str) -> PathBuf {
    let prefix = Path::new(prefix);
    let stem = prefix
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    prefix.with_file_name(format!("{stem}-{name}.png"))
}

/// The sweeps' `--plot FILE.png`, flattened into an example's options. The path is checked when
/// the command line is parsed, before any work: the chart is drawn only after minutes of
/// measurements.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct PlotOption {
    /// also draw the sweep as a PNG line chart
    #[arg(long, value_name = "FILE.png", value_parser = writable_png)]
    pub plot: Option<PathBuf>,
}

impl PlotOption {
    /// Writes `series` as `chart` to the file `--plot` names, if it was given, and says where.
    pub fn write(&self, chart: &Chart, series: &[Series]) -> Result<()> {
        if let Some(path) = &self.plot {
            chart.write(path, series)?;
            println!("plot written to {}", path.display());
        }
        Ok(())
    }
}

/// A `--plot` value: a `.png` file that can be created where it names.
pub fn writable_png(value: &str) -> std::result::Result<PathBuf, String> {
    let path = PathBuf::from(value);
    crate::plot::staging_file(&path).map_err(|e| e.to_string())?;
    Ok(path)
}
