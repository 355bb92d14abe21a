//! course-heat's picture of a field: a PNG heat map (black, red, yellow, white from the least to
//! the greatest temperature), the grid's first row at the top, with a colour bar and a title.
use crate::plot::register_embedded_font;
use ferrocuda::gpu::{Error, Result};
use plotters::prelude::*;
use std::path::Path;

/// Pixels of the longer side of the map: small grids are enlarged, large ones sampled.
pub const MAP_PIXELS: usize = 640;
/// Pixels of the colour bar and its labels, right of the map.
const BAR_PIXELS: u32 = 110;
/// Pixels of the title, above the map.
const TITLE_PIXELS: u32 = 40;

/// The "hot" colour map: `t` in [0, 1] from black through red and yellow to white.
pub fn hot(t: f64) -> RGBColor {
    let t = if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) };
    let channel = |v: f64| (255.0 * v.clamp(0.0, 1.0)).round() as u8;
    RGBColor(channel(3.0 * t), channel(3.0 * t - 1.0), channel(3.0 * t - 2.0))
}

/// Writes the `rows x cols` field (row-major) to the PNG file `path`, titled `title`; each
/// pixel shows the nearest point.
pub fn write_heat_map<T: Into<f64> + Copy>(
    path: impl AsRef<Path>,
    title: &str,
    field: &[T],
    rows: usize,
    cols: usize,
) -> Result<()> {
    let path = path.as_ref();
    let failed = |e: &dyn std::fmt::Display| Error::Io(format!("cannot write the heat map {}: {e}", path.display()));
    if rows == 0 || cols == 0 || field.len() != rows * cols {
        return Err(failed(&format!(
            "{} values are not a {rows} x {cols} field",
            field.len()
        )));
    }
    let (lo, hi) = field.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &u| {
        let u: f64 = u.into();
        (lo.min(u), hi.max(u))
    });
    if !lo.is_finite() || !hi.is_finite() {
        return Err(failed(&"the field holds a value that is not finite"));
    }
    let span = if hi > lo { hi - lo } else { 1.0 };
    let scale = MAP_PIXELS as f64 / rows.max(cols) as f64;
    let (width, height) = (
        ((cols as f64 * scale).round() as u32).max(1),
        ((rows as f64 * scale).round() as u32).max(1),
    );
    register_embedded_font();
    let root = BitMapBackend::new(path, (width + BAR_PIXELS, height + TITLE_PIXELS)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| failed(&e))?;
    let body = root.titled(title, ("sans-serif", 18)).map_err(|e| failed(&e))?;
    let (map, bar) = body.split_horizontally(width);
    for py in 0..height {
        let i = ((f64::from(py) + 0.5) / scale) as usize;
        for px in 0..width {
            let j = ((f64::from(px) + 0.5) / scale) as usize;
            let u: f64 = field[i.min(rows - 1) * cols + j.min(cols - 1)].into();
            map.draw_pixel((px as i32, py as i32), &hot((u - lo) / span))
                .map_err(|e| failed(&e))?;
        }
    }
    let bar_height = height.saturating_sub(20).max(1);
    for py in 0..bar_height {
        let t = 1.0 - f64::from(py) / f64::from(bar_height.saturating_sub(1).max(1));
        for px in 12..36 {
            bar.draw_pixel((px, py as i32 + 10), &hot(t)).map_err(|e| failed(&e))?;
        }
    }
    let label = ("sans-serif", 14).into_font().color(&BLACK);
    bar.draw(&Text::new(format!("{hi:.4}"), (40, 4), label.clone()))
        .map_err(|e| failed(&e))?;
    bar.draw(&Text::new(format!("{lo:.4}"), (40, bar_height as i32), label))
        .map_err(|e| failed(&e))?;
    root.present().map_err(|e| failed(&e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hot_runs_from_black_to_white() {
        assert_eq!(hot(0.0), RGBColor(0, 0, 0));
        assert_eq!(hot(1.0 / 3.0), RGBColor(255, 0, 0));
        assert_eq!(hot(2.0 / 3.0), RGBColor(255, 255, 0));
        assert_eq!(hot(1.0), RGBColor(255, 255, 255));
        assert_eq!(hot(f64::NAN), RGBColor(0, 0, 0));
    }
}
