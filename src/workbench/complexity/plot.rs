//! The plot of a complexity run: time and working memory against input
//! size, log–log, side by side, as SVG (plotters' SVG backend, which needs
//! no system fonts). Each axis spans whole decades, at least one, so that a
//! flat series (working memory under `--memory log`) still has ticks, and
//! ticks are written in units (`6 KB`, `30 ms`).

use super::Measurement;
use crate::error::Error;
use plotters::prelude::*;
use std::path::Path;

/// Draws `complexity.svg` at `path`: time and working memory against input
/// size, log–log, side by side, under `title`.
pub fn render_svg(rows: &[Measurement], title: &str, path: &Path) -> Result<(), Error> {
    let shown = path.display().to_string();
    let root = SVGBackend::new(path, (1200, 520)).into_drawing_area();
    let drawn = (|| -> Result<(), Box<dyn std::error::Error>> {
        root.fill(&WHITE)?;
        let root = root.titled(title, ("sans-serif", 22))?;
        let panels = root.split_evenly((1, 2));
        let sizes: Vec<f64> = rows.iter().map(|r| r.bytes as f64).collect();
        let times: Vec<f64> = rows.iter().map(|r| r.seconds).collect();
        let memory: Vec<f64> = rows.iter().map(|r| r.working_memory_bytes as f64).collect();
        let time = Axis {
            label: "time (seconds)",
            floor: 1e-6,
            unit: seconds_label,
        };
        let bytes = Axis {
            label: "working memory (bytes)",
            floor: 1.0,
            unit: bytes_label,
        };
        draw_panel(&panels[0], &sizes, &times, &time, &BLUE)?;
        draw_panel(&panels[1], &sizes, &memory, &bytes, &RED)?;
        root.present()?;
        Ok(())
    })();
    drawn.map_err(|e| Error::io(shown, std::io::Error::other(e.to_string())))
}

/// A panel's y axis: its title, the least value drawn (a log scale has no
/// 0), and how its ticks are written.
struct Axis {
    label: &'static str,
    floor: f64,
    unit: fn(f64) -> String,
}

/// One log–log panel of `ys` against `xs`, values clamped to at least the
/// axis's floor.
fn draw_panel(
    area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    xs: &[f64],
    ys: &[f64],
    axis: &Axis,
    color: &RGBColor,
) -> Result<(), Box<dyn std::error::Error>> {
    let points: Vec<(f64, f64)> = xs
        .iter()
        .zip(ys)
        .map(|(&x, &y)| (x.max(1.0), y.max(axis.floor)))
        .collect();
    let mut chart = ChartBuilder::on(area)
        .caption(format!("{} vs input bytes", axis.label), ("sans-serif", 18))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(80)
        .build_cartesian_2d(
            decade_range(points.iter().map(|p| p.0)).log_scale(),
            decade_range(points.iter().map(|p| p.1)).log_scale(),
        )?;
    chart
        .configure_mesh()
        .x_desc("input bytes")
        .y_desc(axis.label)
        .x_label_formatter(&|x| bytes_label(*x))
        .y_label_formatter(&|y| (axis.unit)(*y))
        .draw()?;
    chart.draw_series(LineSeries::new(
        points.iter().copied(),
        color.stroke_width(2),
    ))?;
    chart.draw_series(
        points
            .iter()
            .map(|&point| Circle::new(point, 4, color.filled())),
    )?;
    Ok(())
}

/// A range around positive `values` from a power of ten to a power of ten,
/// at least one decade wide: a log axis has its ticks at the powers of ten
/// and between them, so an axis that spans none (working memory flat at
/// 6 KiB, say) would have no tick at all.
fn decade_range(values: impl Iterator<Item = f64> + Clone) -> std::ops::Range<f64> {
    let low = values.clone().fold(f64::INFINITY, f64::min);
    let high = values.fold(0.0, f64::max);
    let bottom = low.log10().floor();
    let top = high.log10().ceil().max(bottom + 1.0);
    // A hair wider, so that rounding in the axis's logarithms keeps both
    // ends' powers of ten on it.
    10f64.powf(bottom) * 0.999..10f64.powf(top) * 1.001
}

/// A tick in bytes: `512 B`, `6 KB`, `1.5 MB` (decimal units, as the
/// ticks fall on powers of ten).
fn bytes_label(bytes: f64) -> String {
    scaled(
        bytes,
        &[(1e12, " TB"), (1e9, " GB"), (1e6, " MB"), (1e3, " KB")],
        " B",
    )
}

/// A tick in seconds: `2 µs`, `30 ms`, `1.5 s`.
fn seconds_label(seconds: f64) -> String {
    if seconds >= 1.0 {
        return scaled(seconds, &[], " s");
    }
    scaled(seconds * 1e6, &[(1e3, " ms")], " µs")
}

/// `value` in the first of `units` (largest first) it reaches, else in
/// `base`, with at most one decimal.
fn scaled(value: f64, units: &[(f64, &str)], base: &str) -> String {
    let (value, unit) = units
        .iter()
        .find(|(size, _)| value >= *size)
        .map_or((value, base), |&(size, unit)| (value / size, unit));
    let text = format!("{value:.1}");
    format!("{}{unit}", text.trim_end_matches(".0"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workbench::complexity::tests::row;

    #[test]
    fn the_plot_is_an_svg_even_with_zero_values() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("complexity.svg");
        render_svg(
            &[row(1 << 16, 0.0, 0), row(1 << 18, 0.5, 700)],
            "test",
            &path,
        )
        .unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(svg.starts_with("<svg"), "{svg:.200}");
        assert!(svg.contains("working memory (bytes)"));
    }

    #[test]
    fn a_flat_series_still_gets_ticks_on_its_axis() {
        let decades = |values: [f64; 2]| {
            let range = decade_range(values.into_iter());
            (range.start.log10().round(), range.end.log10().round())
        };
        assert_eq!(decades([6046.0, 6046.0]), (3.0, 4.0));
        assert_eq!(decades([1000.0, 2e6]), (3.0, 7.0));
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("complexity.svg");
        let rows: Vec<Measurement> = (20..24)
            .map(|k| row(1 << k, 0.01 * k as f64, 6046))
            .collect();
        render_svg(&rows, "flat", &path).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        let texts: Vec<&str> = svg
            .split("<text")
            .skip(1)
            .filter_map(|element| element.split_once('>'))
            .map(|(_, rest)| rest.split('<').next().unwrap_or("").trim())
            .collect();
        for tick in ["1 KB", "5 KB", "10 KB", "1 MB", "100 ms", "500 ms"] {
            assert!(texts.contains(&tick), "no tick {tick}: {texts:?}");
        }
    }

    #[test]
    fn ticks_are_written_in_units() {
        assert_eq!(bytes_label(512.0), "512 B");
        assert_eq!(bytes_label(6000.0), "6 KB");
        assert_eq!(bytes_label(1.5e6), "1.5 MB");
        assert_eq!(seconds_label(2e-6), "2 µs");
        assert_eq!(seconds_label(0.03), "30 ms");
        assert_eq!(seconds_label(1.5), "1.5 s");
    }
}
