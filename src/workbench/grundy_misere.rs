//! `grundy GAME --rule misere`: a heap game's misère quotient (SPEC
//! section 12) as text and as JSON: its order, presentation, P-portion
//! and the pretending function with its period, or how far it got.
//!
//! ```
//! use nimstream::games::{misere::Quotient, Game};
//! use nimstream::workbench::grundy_misere::{json, render};
//!
//! let q = Quotient::compute(&"octal:0.75".parse::<Game>()?, 4096)?;
//! let text = json(&q, 0.0);
//! let value: serde_json::Value = serde_json::from_str(&text)?;
//! assert_eq!(value["order"], 8);
//! assert_eq!(value["elements"][0], "1");
//! assert!(render(&q, 0.0, 24).contains("order 8"));
//! // The keys in SPEC section 12's order.
//! assert!(text.starts_with(r#"{"game":"octal:0.75","rule":"misere","heaps_computed""#));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::games::misere::{Quotient, Stop};
use serde::Serialize;

/// SPEC section 12's JSON object, its keys in the SPEC's order.
#[derive(Serialize)]
struct Report<'q> {
    game: String,
    rule: &'static str,
    heaps_computed: u64,
    order: usize,
    elements: &'q [String],
    product: Vec<&'q [u16]>,
    p_portion: Vec<u16>,
    pretending: Pretending<'q>,
    presentation: &'q str,
    seconds: f64,
}

/// The pretending function: its period, if proven, and its values.
#[derive(Serialize)]
struct Pretending<'q> {
    preperiod: Option<u64>,
    period: Option<u64>,
    values: &'q [u16],
}

/// The quotient as SPEC section 12's JSON object (one line).
pub fn json(q: &Quotient, seconds: f64) -> String {
    let period = q.period();
    let report = Report {
        game: q.game().to_string(),
        rule: "misere",
        heaps_computed: q.heaps_computed(),
        order: q.order(),
        elements: q.names(),
        product: q.rows().collect(),
        p_portion: q.p_portion(),
        pretending: Pretending {
            preperiod: period.map(|p| p.preperiod),
            period: period.map(|p| p.period),
            values: q.pretending(),
        },
        presentation: q.presentation(),
        seconds,
    };
    serde_json::to_string(&report).expect("a report serializes")
}

/// The quotient for people, with the first `shown` values of Φ in rows
/// of 12.
pub fn render(q: &Quotient, seconds: f64, shown: usize) -> String {
    let name = |e: u16| q.names()[e as usize].as_str();
    let mut text = format!("game: {} (misère play)\n", q.game());
    text += &format!(
        "quotient: order {}, exact for every sum of heaps ≤ {}\n",
        q.order(),
        q.heaps_computed()
    );
    text += &match (q.period(), q.stop()) {
        (Some(p), _) => format!(
            "pretending function: preperiod {}, period {} (proven: the quotient of every sum)\n",
            p.preperiod, p.period
        ),
        (None, stop) => format!(
            "pretending function: no period proven after {} heaps ({}){}\n",
            q.heaps_computed(),
            stop.describe(),
            match stop {
                Stop::MaxHeap => "; raise --max-heap",
                _ => "",
            }
        ),
    };
    text += &format!("presentation: {}\n", q.presentation());
    let generators: Vec<String> = q
        .generators()
        .iter()
        .map(|(letter, heap)| format!("{letter} = Φ({heap})"))
        .collect();
    text += &format!("generators: {}\n", generators.join(", "));
    let p: Vec<&str> = q.p_portion().into_iter().map(name).collect();
    text += &format!("P-portion: {{{}}}\n", p.join(", "));
    text += &format!("computed in {seconds:.3} s\n");
    let values = &q.pretending()[..shown.min(q.pretending().len())];
    if !values.is_empty() {
        text += &format!("Φ(0) … Φ({}):\n", values.len() - 1);
    }
    for (row, chunk) in values.chunks(12).enumerate() {
        let names: Vec<String> = chunk.iter().map(|&e| format!("{:>5}", name(e))).collect();
        text += &format!("{:>6}: {}\n", row * 12, names.join(" "));
    }
    text
}
