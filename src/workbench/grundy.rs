//! `nimstream grundy GAME` (SPEC section 8): a game's value sequence, its
//! proven period, the value of heaps of any length, as text, CSV, JSON
//! and an SVG plot.
//!
//! ```
//! use nimstream::games::Game;
//! use nimstream::workbench::grundy::Table;
//!
//! let table = Table::compute(&"kayles".parse::<Game>()?, 1 << 20)?;
//! assert_eq!(table.heap_value("1000000000000000000000000")?, 1);
//! assert!(table.render(24).contains("periodic from 71 with period 12"));
//! # Ok::<(), nimstream::Error>(())
//! ```

use crate::error::Error;
use crate::games::residue::Modulus;
use crate::games::{Game, Sequence};
use plotters::prelude::*;
use serde::Serialize;
use std::fmt::Write;
use std::path::Path;
use std::time::Instant;

/// Values per row of the text.
const ROW: usize = 12;

/// The most values plotted one point each; a longer sequence is drawn as
/// the range of values in each of this many columns.
const MAX_POINTS: usize = 2000;

/// The most period marks drawn (a short period over a long range would
/// fill the plot).
const MAX_MARKS: u64 = 100;

/// The lowest and highest value in each of [`MAX_POINTS`] columns of
/// `values`, at the column's first heap.
fn column_ranges(values: &[u16]) -> impl Iterator<Item = (f64, f64, f64)> + '_ {
    let width = values.len().div_ceil(MAX_POINTS);
    values
        .chunks(width)
        .enumerate()
        .map(move |(column, chunk)| {
            let low = chunk.iter().copied().min().unwrap_or(0);
            let high = chunk.iter().copied().max().unwrap_or(0);
            ((column * width) as f64, f64::from(low), f64::from(high))
        })
}

/// A game's value sequence and how long it took.
pub struct Table {
    sequence: Sequence,
    seconds: f64,
}

/// The JSON of `grundy --json`.
#[derive(Serialize)]
struct TableJson<'t> {
    game: String,
    preperiod: Option<u64>,
    period: Option<u64>,
    values_computed: u64,
    seconds: f64,
    values: Vec<u16>,
    heaps: Vec<HeapJson<'t>>,
}

/// One `--heap` and its value.
#[derive(Serialize)]
struct HeapJson<'t> {
    heap: &'t str,
    grundy: u16,
}

impl Table {
    /// Computes `game`'s values until a period is proven or `max_values`
    /// exist.
    pub fn compute(game: &Game, max_values: u64) -> Result<Table, Error> {
        let started = Instant::now();
        let sequence = Sequence::compute(game, max_values)?;
        Ok(Table {
            sequence,
            seconds: started.elapsed().as_secs_f64(),
        })
    }

    /// The sequence.
    pub fn sequence(&self) -> &Sequence {
        &self.sequence
    }

    /// The value of the heap written as `decimal`, digits of any length.
    pub fn heap_value(&self, decimal: &str) -> Result<u16, Error> {
        let digits = decimal.trim_start_matches('0').as_bytes();
        if decimal.is_empty() || !decimal.bytes().all(|b| b.is_ascii_digit()) {
            return Err(Error::Usage(format!(
                "--heap '{decimal}' is not a decimal number"
            )));
        }
        let small = std::str::from_utf8(digits)
            .ok()
            .and_then(|d| d.parse::<u64>().ok());
        let value = match small {
            Some(h) => self.sequence.value(h),
            None if digits.is_empty() => self.sequence.value(0),
            None => self
                .sequence
                .period()
                .and_then(|period| Modulus::new(period.period))
                .and_then(|modulus| self.sequence.value_at_residue(modulus.of_decimal(digits))),
        };
        value.ok_or_else(|| {
            Error::Usage(format!(
                "heap {decimal} lies past the {} values computed for {}, which has no \
                     period proven within them; raise --max-values",
                self.sequence.values_computed(),
                self.sequence.game()
            ))
        })
    }

    /// The text: the game, its period, the time, the first `shown` values
    /// in rows of 12.
    pub fn render(&self, shown: usize) -> String {
        let sequence = &self.sequence;
        let mut out = format!("game      {}\n", sequence.game());
        let _ = writeln!(out, "values    {}", self.period_phrase());
        let _ = writeln!(
            out,
            "computed  {} values in {:.3} s",
            sequence.values_computed(),
            self.seconds
        );
        for (row, chunk) in self.first_values(shown).chunks(ROW).enumerate() {
            let cells: Vec<String> = chunk.iter().map(|v| format!("{v:>3}")).collect();
            let _ = writeln!(out, "{:>8}: {}", row * ROW, cells.join(" "));
        }
        out
    }

    /// g(0), g(1), … g(shown − 1): past the values computed, from the
    /// period (without one, only the values computed).
    pub fn first_values(&self, shown: usize) -> Vec<u16> {
        (0..shown as u64)
            .map_while(|h| self.sequence.value(h))
            .collect()
    }

    /// "periodic from 71 with period 12", or that none was proven.
    fn period_phrase(&self) -> String {
        match self.sequence.period() {
            Some(p) => format!("periodic from {} with period {}", p.preperiod, p.period),
            None => format!(
                "no period proven within {} values",
                self.sequence.values_computed()
            ),
        }
    }

    /// The CSV: `heap,grundy`, then one row per computed value.
    pub fn csv(&self) -> String {
        let mut out = String::from("heap,grundy\n");
        for (heap, value) in self.sequence.values().iter().enumerate() {
            let _ = writeln!(out, "{heap},{value}");
        }
        out
    }

    /// The JSON, with the first `shown` values and the `heaps` asked for
    /// (already checked by [`Table::heap_value`]).
    pub fn json(&self, shown: usize, heaps: &[(String, u16)]) -> String {
        let period = self.sequence.period();
        let json = TableJson {
            game: self.sequence.game().to_string(),
            preperiod: period.map(|p| p.preperiod),
            period: period.map(|p| p.period),
            values_computed: self.sequence.values_computed(),
            seconds: self.seconds,
            values: self.first_values(shown),
            heaps: heaps
                .iter()
                .map(|(heap, grundy)| HeapJson {
                    heap,
                    grundy: *grundy,
                })
                .collect(),
        };
        serde_json::to_string(&json).expect("a table always serialises")
    }

    /// Draws g(h) against h over the computed values at `path`, the
    /// periodic part shaded.
    pub fn svg(&self, path: &Path) -> Result<(), Error> {
        let shown = path.display().to_string();
        let drawn = self.draw(path);
        drawn.map_err(|e| Error::io(shown, std::io::Error::other(e.to_string())))
    }

    fn draw(&self, path: &Path) -> Result<(), Box<dyn std::error::Error>> {
        let values = self.sequence.values();
        let root = SVGBackend::new(path, (1200, 520)).into_drawing_area();
        root.fill(&WHITE)?;
        let n = values.len().max(1) as f64;
        let top = f64::from(values.iter().copied().max().unwrap_or(0)) + 1.0;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!("{}: {}", self.sequence.game(), self.period_phrase()),
                ("sans-serif", 20),
            )
            .margin(16)
            .x_label_area_size(44)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..n, 0.0..top)?;
        chart
            .configure_mesh()
            .x_desc("heap h")
            .y_desc("g(h)")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format!("{y:.0}"))
            .draw()?;
        if let Some(period) = self.sequence.period() {
            let start = period.preperiod as f64;
            let shade = RGBColor(255, 236, 200).filled();
            chart.draw_series(std::iter::once(Rectangle::new(
                [(start, 0.0), (n, top)],
                shade,
            )))?;
            let step = period.period.max(values.len() as u64 / MAX_MARKS) as usize;
            let marks = (period.preperiod..values.len() as u64).step_by(step);
            chart.draw_series(marks.map(|h| {
                PathElement::new(vec![(h as f64, 0.0), (h as f64, top)], RED.stroke_width(1))
            }))?;
        }
        if values.len() <= MAX_POINTS {
            chart.draw_series(
                values
                    .iter()
                    .enumerate()
                    .map(|(h, &g)| Circle::new((h as f64, f64::from(g)), 2, BLUE.filled())),
            )?;
        } else {
            chart.draw_series(column_ranges(values).map(|(h, low, high)| {
                PathElement::new(vec![(h, low), (h, high)], BLUE.stroke_width(1))
            }))?;
        }
        root.present()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigUint;

    fn kayles() -> Table {
        Table::compute(&"kayles".parse().unwrap(), 1 << 16).unwrap()
    }

    #[test]
    fn the_text_has_the_period_and_rows_of_twelve() {
        let text = kayles().render(30);
        assert!(
            text.contains("values    periodic from 71 with period 12\n"),
            "{text}"
        );
        assert!(text.contains("       0:   0   1   2   3   1   4   3   2   1   4   2   6\n"));
        assert!(
            text.ends_with("      24:   4   1   2   8   5   4\n"),
            "{text}"
        );
    }

    #[test]
    fn values_past_the_proof_come_from_the_period() {
        let table = kayles();
        let first = table.first_values(1000);
        assert_eq!(first.len(), 1000);
        assert!((71..988).all(|h| first[h] == first[h + 12]));
    }

    #[test]
    fn a_heap_of_any_length_takes_the_value_of_its_residue() {
        let table = kayles();
        let heap = "9".repeat(500);
        let h: BigUint = heap.parse().unwrap();
        let index = 71
            + ((&h - 71u32) % 12u32)
                .to_u64_digits()
                .first()
                .copied()
                .unwrap_or(0);
        let want = table.sequence().values()[index as usize];
        assert_eq!(table.heap_value(&heap).unwrap(), want);
        assert_eq!(table.heap_value("0007").unwrap(), 2);
        assert!(table.heap_value("12a").is_err());
        assert!(table.heap_value("").is_err());
    }

    #[test]
    fn a_heap_past_the_values_of_a_game_without_a_period_is_refused() {
        let table = Table::compute(&"octal:0.6".parse().unwrap(), 500).unwrap();
        assert!(table.sequence().period().is_none());
        assert!(table.heap_value("499").is_ok());
        let error = table.heap_value("500").unwrap_err().to_string();
        assert!(error.contains("500 values computed"), "{error}");
    }

    #[test]
    fn the_csv_has_every_value_and_the_json_the_fields_of_the_spec() {
        let table = kayles();
        let csv = table.csv();
        assert!(csv.starts_with("heap,grundy\n0,0\n1,1\n2,2\n"));
        assert_eq!(
            csv.lines().count() as u64,
            1 + table.sequence().values_computed()
        );
        let json: serde_json::Value =
            serde_json::from_str(&table.json(3, &[("4".into(), 1)])).unwrap();
        assert_eq!(json["game"], "octal:0.77");
        assert_eq!(
            (json["preperiod"].as_u64(), json["period"].as_u64()),
            (Some(71), Some(12))
        );
        assert_eq!(json["values"], serde_json::json!([0, 1, 2]));
        assert_eq!(
            json["heaps"],
            serde_json::json!([{"heap": "4", "grundy": 1}])
        );
        assert!(json["seconds"].is_number() && json["values_computed"].is_number());
    }

    #[test]
    fn the_plot_is_an_svg_for_short_and_long_sequences() {
        let dir = tempfile::tempdir().unwrap();
        for game in ["kayles", "octal:0.156"] {
            let path = dir.path().join("g.svg");
            let table = Table::compute(&game.parse().unwrap(), 1 << 20).unwrap();
            table.svg(&path).unwrap();
            let svg = std::fs::read_to_string(&path).unwrap();
            assert!(svg.starts_with("<svg") && svg.contains("g(h)"), "{game}");
        }
    }
}
