//! `nimstream grundy GAME` (SPEC sections 8 and 13): a game's value
//! sequence, its proven period, the value of heaps of any length, its
//! frequencies and rare values, as text, JSON and an SVG plot.
//!
//! The sequence is computed as a stream ([`crate::games::stream`]): in
//! memory when `--memory` holds every value, keeping a prefix and the last
//! values otherwise. A [`Table`] is what a run found.
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
use crate::games::stream::{Control, Limits, Outcome, Outputs, Settings, Status, Streamer};
use crate::games::Game;
use plotters::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

/// Values per row of the text.
const ROW: usize = 12;

/// The most values plotted one point each; a longer sequence is drawn as
/// the range of values in each of this many columns.
const MAX_POINTS: usize = 2000;

/// The most period marks drawn (a short period over a long range would
/// fill the plot).
const MAX_MARKS: u64 = 100;

/// The memory of [`Table::compute`]: the command line's default.
const DEFAULT_MEMORY: u64 = 1 << 30;

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

/// What a run of a game's sequence found.
pub struct Table {
    outcome: Outcome,
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
    frequencies: BTreeMap<u16, u64>,
    rare: RareJson<'t>,
    largest_value: u16,
    values_per_second: f64,
    period_window: Option<u64>,
}

/// One `--heap` and its value.
#[derive(Serialize)]
struct HeapJson<'t> {
    heap: &'t str,
    grundy: u16,
}

/// The rare values: empty, with no mask, when the sequence has no sparse
/// class.
#[derive(Serialize)]
struct RareJson<'t> {
    values: &'t [u16],
    last_rare_heap: Option<u64>,
    mask: Option<u16>,
}

impl Table {
    /// Computes `game`'s values until a period is proven or `max_values`
    /// exist, under 1 GiB of memory (every value kept up to 2^26 or so).
    pub fn compute(game: &Game, max_values: u64) -> Result<Table, Error> {
        let settings = Settings {
            max_values,
            limits: Limits::for_memory(DEFAULT_MEMORY).expect("1 GiB keeps values"),
            watch: Vec::new(),
            threads: 0,
        };
        let mut run = Streamer::new(game, settings);
        match run.run(&mut Outputs::none(), &Control::default())? {
            Status::Stopped(message) => Err(Error::Stopped(message)),
            Status::Done | Status::Interrupted => Ok(Table::from_outcome(run.into_outcome())),
        }
    }

    /// The table of a run's outcome.
    pub fn from_outcome(outcome: Outcome) -> Table {
        Table { outcome }
    }

    /// What the run found.
    pub fn outcome(&self) -> &Outcome {
        &self.outcome
    }

    /// The value of the heap written as `decimal`, digits of any length.
    pub fn heap_value(&self, decimal: &str) -> Result<u16, Error> {
        let digits = decimal.trim_start_matches('0').as_bytes();
        if decimal.is_empty() || !decimal.bytes().all(|b| b.is_ascii_digit()) {
            return Err(Error::Usage(format!(
                "--heap '{decimal}' is not a decimal number"
            )));
        }
        let outcome = &self.outcome;
        let small = std::str::from_utf8(digits)
            .ok()
            .and_then(|d| d.parse::<u64>().ok());
        let value = match small {
            Some(h) => outcome.value(h),
            None if digits.is_empty() => outcome.value(0),
            None => outcome
                .period
                .and_then(|period| Modulus::new(period.period))
                .and_then(|modulus| outcome.value_at_residue(modulus.of_decimal(digits))),
        };
        if let (None, Some(h)) = (value, small.filter(|&h| h < outcome.values_computed)) {
            return Err(Error::Usage(format!(
                "heap {h} was computed but not kept (the run kept the first {} values): name it \
                 with --heap when the run starts",
                outcome.prefix.len()
            )));
        }
        value.ok_or_else(|| {
            Error::Usage(format!(
                "heap {decimal} lies past the {} values computed for {}, which has no \
                     period proven within them; raise --max-values",
                outcome.values_computed, outcome.game
            ))
        })
    }

    /// The text: the game, its period, the time, the rare values and what
    /// was kept when it says something, the first `shown` values in rows
    /// of 12.
    pub fn render(&self, shown: usize) -> String {
        let outcome = &self.outcome;
        let mut out = format!("game      {}\n", outcome.game);
        let _ = writeln!(out, "values    {}", self.period_phrase());
        let _ = writeln!(
            out,
            "computed  {} values in {:.3} s",
            outcome.values_computed, outcome.seconds
        );
        if let Some(rare) = &outcome.rare {
            let last = rare
                .last_rare_heap
                .map_or("none".into(), |heap| heap.to_string());
            let _ = writeln!(
                out,
                "rare      {} values (mask {}), the last at heap {last}; largest value {}",
                rare.values.len(),
                rare.mask,
                outcome.largest_value
            );
        }
        if let Some(window) = outcome.period_window {
            let _ = writeln!(
                out,
                "kept      the first {} values and the last {window} (periods looked for in them)",
                outcome.prefix.len()
            );
        }
        for (row, chunk) in self.first_values(shown).chunks(ROW).enumerate() {
            let cells: Vec<String> = chunk.iter().map(|v| format!("{v:>3}")).collect();
            let _ = writeln!(out, "{:>8}: {}", row * ROW, cells.join(" "));
        }
        out
    }

    /// g(0), g(1), … g(shown − 1): past the values computed, from the
    /// period (without one, only the values computed and kept).
    pub fn first_values(&self, shown: usize) -> Vec<u16> {
        (0..shown as u64)
            .map_while(|h| self.outcome.value(h))
            .collect()
    }

    /// "periodic from 71 with period 12", or that none was proven.
    fn period_phrase(&self) -> String {
        match self.outcome.period {
            Some(p) => format!("periodic from {} with period {}", p.preperiod, p.period),
            None => format!(
                "no period proven within {} values",
                self.outcome.values_computed
            ),
        }
    }

    /// The JSON, with the first `shown` values and the `heaps` asked for
    /// (already checked by [`Table::heap_value`]).
    pub fn json(&self, shown: usize, heaps: &[(String, u16)]) -> String {
        let outcome = &self.outcome;
        let no_rare = (&[][..], None, None);
        let (rare_values, last_rare_heap, mask) = outcome.rare.as_ref().map_or(no_rare, |rare| {
            (&rare.values[..], rare.last_rare_heap, Some(rare.mask))
        });
        let json = TableJson {
            game: outcome.game.to_string(),
            preperiod: outcome.period.map(|p| p.preperiod),
            period: outcome.period.map(|p| p.period),
            values_computed: outcome.values_computed,
            seconds: outcome.seconds,
            values: self.first_values(shown),
            heaps: heaps
                .iter()
                .map(|(heap, grundy)| HeapJson {
                    heap,
                    grundy: *grundy,
                })
                .collect(),
            frequencies: (outcome.frequencies.iter().enumerate())
                .filter(|&(_, &count)| count > 0)
                .map(|(value, &count)| (value as u16, count))
                .collect(),
            rare: RareJson {
                values: rare_values,
                last_rare_heap,
                mask,
            },
            largest_value: outcome.largest_value,
            values_per_second: self.values_per_second(),
            period_window: outcome.period_window,
        };
        serde_json::to_string(&json).expect("a table always serialises")
    }

    /// Values computed a second (over every run of a resumed sequence).
    pub fn values_per_second(&self) -> f64 {
        let outcome = &self.outcome;
        match outcome.seconds > 0.0 {
            true => outcome.values_computed as f64 / outcome.seconds,
            false => 0.0,
        }
    }

    /// Draws g(h) against h over the computed values at `path`, the
    /// periodic part shaded.
    pub fn svg(&self, path: &Path) -> Result<(), Error> {
        if !self.outcome.all_kept {
            return Err(Error::Usage(format!(
                "--svg plots every value computed, but the run kept only the first {} of {}: \
                 raise --memory, or plot the values of --values-out",
                self.outcome.prefix.len(),
                self.outcome.values_computed
            )));
        }
        let shown = path.display().to_string();
        let drawn = self.draw(path);
        drawn.map_err(|e| Error::io(shown, std::io::Error::other(e.to_string())))
    }

    fn draw(&self, path: &Path) -> Result<(), Box<dyn std::error::Error>> {
        let values = &self.outcome.prefix[..];
        let root = SVGBackend::new(path, (1200, 520)).into_drawing_area();
        root.fill(&WHITE)?;
        let n = values.len().max(1) as f64;
        let top = f64::from(values.iter().copied().max().unwrap_or(0)) + 1.0;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!("{}: {}", self.outcome.game, self.period_phrase()),
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
        if let Some(period) = self.outcome.period {
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
        let want = table.outcome().prefix[index as usize];
        assert_eq!(table.heap_value(&heap).unwrap(), want);
        assert_eq!(table.heap_value("0007").unwrap(), 2);
        assert!(table.heap_value("12a").is_err());
        assert!(table.heap_value("").is_err());
    }

    #[test]
    fn a_heap_past_the_values_of_a_game_without_a_period_is_refused() {
        let table = Table::compute(&"octal:0.6".parse().unwrap(), 500).unwrap();
        assert!(table.outcome().period.is_none());
        assert!(table.heap_value("499").is_ok());
        let error = table.heap_value("500").unwrap_err().to_string();
        assert!(error.contains("500 values computed"), "{error}");
    }

    #[test]
    fn the_json_has_the_fields_of_the_spec() {
        let table = kayles();
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
        // Heaps 1 … 167 of Kayles, counted.
        let values = table.first_values(168);
        let counted: u64 = json["frequencies"]
            .as_object()
            .unwrap()
            .values()
            .map(|c| c.as_u64().unwrap())
            .sum();
        assert_eq!(counted, 167);
        let fours = values[1..].iter().filter(|&&v| v == 4).count() as u64;
        assert_eq!(json["frequencies"]["4"], fours);
        assert_eq!(
            json["largest_value"],
            values[1..].iter().max().copied().unwrap()
        );
        assert!(json["values_per_second"].is_number() && json["period_window"].is_null());
        assert!(json["rare"]["values"].is_array());
    }

    #[test]
    fn the_rare_values_of_0_161_are_the_literatures() {
        let table = Table::compute(&"octal:0.161".parse().unwrap(), 30_000).unwrap();
        let json: serde_json::Value = serde_json::from_str(&table.json(0, &[])).unwrap();
        // Flammenkamp's table and ogsolve's R0 class: 0, 1, 6, 7, 10, 11, …
        let rare = json["rare"]["values"].as_array().unwrap();
        assert_eq!(rare[..6], [0, 1, 6, 7, 10, 11]);
        assert_eq!(json["rare"]["last_rare_heap"], 23_784);
        assert_eq!(json["rare"]["mask"], 254);
        assert!(table.render(0).contains("rare      "));
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
