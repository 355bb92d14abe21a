//! PNG line charts of the sweeps (`--plot FILE.png`), like the book's figures: one or more named
//! series of `(x, y)` points, linear or logarithmic x axis.
//!
//! The font (DejaVu Sans, `host/book/ferrocuda-book/assets/`, Bitstream Vera license) is embedded and rasterised in
//! Rust, so a chart renders on a machine without fonts or fontconfig, such as the GPU machines.
//!
//! ```no_run
//! use ferrocuda_book::plot::{Chart, Series};
//! let series = [Series::new("pinned", vec![(1e3, 1.2), (1e6, 20.5), (1e8, 25.1)])];
//! Chart::new("Host to device", "transfer size (bytes)", "GB/s").log_x().write("h2d.png", &series)?;
//! # Ok::<(), ferrocuda::Error>(())
//! ```
use ferrocuda::gpu::{Error, Result};
use image::ImageEncoder;
use plotters::prelude::*;
use plotters::style::{FontStyle, register_font};
use std::io::Write;
use std::path::Path;
use std::sync::Once;

/// Pixels of every chart.
pub const SIZE: (u32, u32) = (900, 560);

static FONT: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");

/// One named line of a chart.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

impl Series {
    /// A series named `name` through `points` (drawn in the given order).
    pub fn new(name: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Self {
            name: name.into(),
            points,
        }
    }
}

/// A chart's title, axis labels and x scale.
#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub log_x: bool,
}

impl Chart {
    /// A chart with a linear x axis.
    pub fn new(title: impl Into<String>, x_label: impl Into<String>, y_label: impl Into<String>) -> Self {
        Self {
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            log_x: false,
        }
    }

    /// With a logarithmic x axis (sizes spanning decades).
    pub fn log_x(mut self) -> Self {
        self.log_x = true;
        self
    }

    /// Draws `series` into the PNG file `path`: the x range spans every point, the y range runs
    /// from 0 (or the least value, when negative) to 5% above the greatest. The chart is drawn
    /// and encoded in memory, written to a temporary file beside `path`, then renamed over it:
    /// a failure (a full disk, a missing directory) is one sentence, and leaves `path` as it was.
    pub fn write(&self, path: impl AsRef<Path>, series: &[Series]) -> Result<()> {
        let path = path.as_ref();
        let failed = |e: &dyn std::fmt::Display| Error::Io(format!("cannot write the plot {}: {e}", path.display()));
        let points = || series.iter().flat_map(|s| s.points.iter().copied());
        if points().any(|(x, y)| !x.is_finite() || !y.is_finite() || (self.log_x && x <= 0.0)) || points().count() == 0
        {
            return Err(failed(
                &"no points, or a point that is not finite (or not positive on a log axis)",
            ));
        }
        let (x_min, x_max) = points().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), (x, _)| {
            (lo.min(x), hi.max(x))
        });
        let (y_min, y_max) = points().fold((0f64, f64::NEG_INFINITY), |(lo, hi), (_, y)| (lo.min(y), hi.max(y)));
        let x_max = if x_max > x_min { x_max } else { x_min + 1.0 };
        let y_max = if y_max > y_min {
            y_max + 0.05 * (y_max - y_min)
        } else {
            y_min + 1.0
        };
        register_embedded_font();

        let mut pixels = vec![0u8; SIZE.0 as usize * SIZE.1 as usize * 3];
        self.draw(&mut pixels, series, (x_min, x_max), (y_min, y_max))
            .map_err(|e| failed(&e))?;
        let mut png = Vec::new();
        image::codecs::png::PngEncoder::new(&mut png)
            .write_image(&pixels, SIZE.0, SIZE.1, image::ColorType::Rgb8)
            .map_err(|e| failed(&e))?;
        let mut staged = staging_file(path)?;
        // A temporary file is private (0600); the chart is an ordinary output file.
        let readable = std::os::unix::fs::PermissionsExt::from_mode(0o644);
        staged
            .write_all(&png)
            .and_then(|()| staged.as_file().set_permissions(readable))
            .and_then(|()| staged.as_file().sync_all())
            .map_err(|e| failed(&e))?;
        staged.persist(path).map_err(|e| failed(&e.error))?;
        Ok(())
    }

    /// Draws the chart into `pixels` (RGB, [`SIZE`]).
    fn draw(
        &self,
        pixels: &mut [u8],
        series: &[Series],
        (x_min, x_max): (f64, f64),
        (y_min, y_max): (f64, f64),
    ) -> std::result::Result<(), String> {
        let root = BitMapBackend::with_buffer(pixels, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let mut builder = ChartBuilder::on(&root);
        builder
            .caption(&self.title, ("sans-serif", 22))
            .margin(16)
            .x_label_area_size(44)
            .y_label_area_size(64);
        if self.log_x {
            let chart = builder.build_cartesian_2d((x_min..x_max).log_scale(), y_min..y_max);
            self.draw_series(chart.map_err(|e| e.to_string())?, series)
        } else {
            let chart = builder.build_cartesian_2d(x_min..x_max, y_min..y_max);
            self.draw_series(chart.map_err(|e| e.to_string())?, series)
        }
        .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())
    }

    /// The mesh with the axis labels (decades on a log x axis), then each series as a line with
    /// its points marked, in the palette's colours, then the legend.
    fn draw_series<'a, X, DB>(
        &self,
        mut chart: ChartContext<'a, DB, Cartesian2d<X, plotters::coord::types::RangedCoordf64>>,
        series: &[Series],
    ) -> std::result::Result<(), DrawingAreaErrorKind<DB::ErrorType>>
    where
        X: Ranged<ValueType = f64> + plotters::coord::ranged1d::ValueFormatter<f64>,
        DB: DrawingBackend + 'a,
    {
        let decades = |x: &f64| format!("{x:.0e}");
        let mut mesh = chart.configure_mesh();
        mesh.x_desc(&self.x_label).y_desc(&self.y_label);
        if self.log_x {
            mesh.x_label_formatter(&decades);
        }
        mesh.draw()?;
        for (k, s) in series.iter().enumerate() {
            let colour = Palette99::pick(k).to_rgba();
            chart
                .draw_series(LineSeries::new(s.points.iter().copied(), colour.stroke_width(2)))?
                .label(s.name.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2)));
            chart.draw_series(s.points.iter().map(|&p| Circle::new(p, 3, colour.filled())))?;
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .position(SeriesLabelPosition::LowerRight)
            .draw()
    }
}

/// A temporary file in `path`'s directory, to be renamed over `path` once a chart is in it;
/// creating one also checks, before any work, that a chart can be written there.
pub fn staging_file(path: &Path) -> Result<tempfile::NamedTempFile> {
    // A rename would replace a device or a directory (`--plot /dev/null`), not write into it.
    if path.exists() && !path.is_file() {
        return Err(Error::InvalidArgument(format!(
            "cannot write the plot {}: it exists and is not a regular file",
            path.display()
        )));
    }
    // The charts are PNG: a name saying otherwise (`chart.svg`) would hold the wrong format.
    let png = path
        .extension()
        .is_some_and(|extension| extension.eq_ignore_ascii_case("png"));
    if !png {
        return Err(Error::InvalidArgument(format!(
            "cannot write the plot `{}`: charts are PNG, so give a file name ending in .png",
            path.display()
        )));
    }
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    tempfile::Builder::new()
        .prefix(".plot-")
        .suffix(".png")
        .tempfile_in(dir)
        .map_err(|e| match e.kind() {
            // The path the user chose: an argument error, as the runner reports them. A directory
            // that exists but refuses the file with ENOENT (`/proc`) is the generic case below.
            std::io::ErrorKind::NotFound if !dir.is_dir() => Error::InvalidArgument(format!(
                "cannot write the plot {}: the directory {} does not exist",
                path.display(),
                dir.display()
            )),
            _ => Error::Io(format!(
                "cannot write the plot {}: cannot create a file in {}: {e}",
                path.display(),
                dir.display()
            )),
        })
}

/// Registers the embedded font as "sans-serif", once: for every drawing with text.
pub(crate) fn register_embedded_font() {
    static REGISTER: Once = Once::new();
    REGISTER.call_once(|| {
        // The embedded file is a valid TrueType font; a failure here would be a build defect
        // that every chart test catches (text would be missing, not the chart).
        let _ = register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_png(name: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("ferrocuda-plot-{}-{name}.png", std::process::id()))
    }

    #[test]
    fn writes_a_png_of_the_chart_size() {
        let series = [
            Series::new("pageable", vec![(1e3, 0.5), (1e6, 6.0), (2.5e8, 8.1)]),
            Series::new("pinned", vec![(1e3, 0.9), (1e6, 20.0), (2.5e8, 25.3)]),
        ];
        for (chart, name) in [
            (Chart::new("H2D", "bytes", "GB/s").log_x(), "log"),
            (Chart::new("H2D", "bytes", "GB/s"), "linear"),
        ] {
            let path = temp_png(name);
            chart.write(&path, &series).expect("chart");
            let png = std::fs::read(&path).expect("read back");
            std::fs::remove_file(&path).ok();
            assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
            // IHDR: width and height, big-endian, at bytes 16..24.
            let width = u32::from_be_bytes(png[16..20].try_into().unwrap());
            let height = u32::from_be_bytes(png[20..24].try_into().unwrap());
            assert_eq!((width, height), SIZE);
        }
    }

    #[test]
    fn a_failed_write_leaves_nothing_behind() {
        let series = [Series::new("s", vec![(1.0, 1.0), (2.0, 2.0)])];
        let dir = tempfile::tempdir().expect("a temporary directory");
        // The destination is a directory: refused, and left as it was.
        let taken = dir.path().join("chart.png");
        std::fs::create_dir(&taken).expect("mkdir");
        std::fs::write(taken.join("kept"), b"kept").expect("a file inside");
        let error = Chart::new("t", "x", "y")
            .write(&taken, &series)
            .expect_err("a directory");
        assert!(
            error.to_string().ends_with("it exists and is not a regular file"),
            "{error}"
        );
        let error = Chart::new("t", "x", "y")
            .write("/dev/null", &series)
            .expect_err("a device");
        assert!(
            error.to_string().ends_with("it exists and is not a regular file"),
            "{error}"
        );
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(
            left,
            vec![std::ffi::OsString::from("chart.png")],
            "no temporary file left"
        );
        assert_eq!(std::fs::read(taken.join("kept")).unwrap(), b"kept");
        // A missing directory is named, in one sentence.
        let missing = dir.path().join("no-such-dir/x.png");
        let error = staging_file(&missing).expect_err("missing directory");
        assert!(error.to_string().contains("does not exist"), "{error}");
    }

    #[test]
    fn refuses_charts_it_cannot_draw() {
        let chart = Chart::new("t", "x", "y").log_x();
        assert!(chart.write(temp_png("empty"), &[]).is_err());
        let zero_on_log = [Series::new("s", vec![(0.0, 1.0), (1.0, 2.0)])];
        assert!(chart.write(temp_png("zero"), &zero_on_log).is_err());
        let nan = [Series::new("s", vec![(1.0, f64::NAN)])];
        assert!(Chart::new("t", "x", "y").write(temp_png("nan"), &nan).is_err());
        let unwritable = [Series::new("s", vec![(1.0, 1.0), (2.0, 2.0)])];
        assert!(
            Chart::new("t", "x", "y")
                .write("/nonexistent-dir/x.png", &unwritable)
                .is_err()
        );
    }
}
