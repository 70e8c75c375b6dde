//! `concbench replicate`: per seed, the published figures beside this machine's, and the
//! verdicts on the seed's claims.

use crate::{layout::table, sections};
use concbench_analysis::answer::Answer;
use concbench_analysis::published::Published;
use concbench_core::ResultDoc;
use std::fmt::Write;

/// One block per seed: its figures (published, machine, measured here, ratio) and verdicts.
pub fn seeds_text(doc: &ResultDoc, published: &Published, seeds: &[&str]) -> String {
    let answer = Answer::with(doc, published);
    let replication = sections::replication_rows(&answer);
    let mut out = String::new();
    for seed in seeds {
        let _ = writeln!(out, "\n== {seed}");
        let rows: Vec<[String; 7]> = replication
            .iter()
            .filter(|r| r[0] == *seed)
            .cloned()
            .collect();
        let figures = published.figures.iter().filter(|f| f.seed == *seed).count();
        if rows.is_empty() {
            if figures > 0 {
                let _ = writeln!(
                    out,
                    "No published figure of {seed} was measured in this run."
                );
            }
        } else {
            let _ = writeln!(out, "{}", table(sections::REPLICATION_HEADER, &rows, None));
            if rows.len() < figures {
                let _ = writeln!(
                    out,
                    "{} of {figures} published figures measured (the others are outside this run)",
                    rows.len()
                );
            }
        }
        let in_table = |id: &str| published.dimensions.iter().any(|d| d.claim == id);
        if published.claims_of(seed).any(|c| in_table(&c.id)) {
            let _ = writeln!(out, "{}", sections::S0_TABLE_OPENING);
            let rows = sections::s0_table_rows(&answer);
            let _ = writeln!(out, "{}", table(sections::S0_TABLE_HEADER, &rows, None));
        }
        for claim in published.claims_of(seed).filter(|c| !in_table(&c.id)) {
            match doc.verdicts.iter().find(|v| v.source == claim.id) {
                Some(v) => {
                    let _ = writeln!(
                        out,
                        "verdict on \"{}\": {} — {}",
                        claim.text,
                        sections::verdict_cell(v).to_uppercase(),
                        v.explanation
                    );
                }
                None if claim.unjudged.is_some() => {
                    let _ = writeln!(
                        out,
                        "not judged here: \"{}\" — {}",
                        claim.text,
                        claim.unjudged.as_deref().unwrap_or_default()
                    );
                }
                None => {
                    let _ = writeln!(
                        out,
                        "verdict on \"{}\": none (this run lacks its evidence)",
                        claim.text
                    );
                }
            }
        }
    }
    out
}
