//! From rounds to the document's results: summarise each variant and pass it through the
//! validation gate.

use concbench_analysis::{build_entry, validate};
use concbench_core::{Host, Invalid, ResultEntry, RoundRaw};

/// One variant's rounds (at least one).
pub struct Measured<'a> {
    pub rounds: &'a [RoundRaw],
}

/// Valid results and invalid ones, in the variants' order.
pub fn assemble(measured: &[Measured<'_>], host: &Host) -> (Vec<ResultEntry>, Vec<Invalid>) {
    let mut results = Vec::new();
    let mut invalid = Vec::new();
    for m in measured.iter().filter(|m| !m.rounds.is_empty()) {
        let calibrated = m.rounds.iter().any(|r| r.raw.calibrated);
        match validate(build_entry(m.rounds), calibrated, host) {
            Ok(e) => results.push(e),
            Err(i) => invalid.push(i),
        }
    }
    (results, invalid)
}
