//! S0.stevens.order: Stevens's ranking of server designs by server CPU per connection (UNP
//! ch. 30), re-run on this machine (`server.stevens`, the iterative server's CPU subtracted as
//! he did). Judged by the rank correlation with his most complete column (Solaris 2.5.1) and by
//! his headline: fork per client costs by far the most.

use super::verdict;
use crate::published::Published;
use concbench_core::{ResultDoc, Verdict, VerdictKind};

/// The machine whose column has every design.
const COLUMN: &str = "stevens-solaris";

pub fn design_order(doc: &ResultDoc, published: &Published) -> Option<Verdict> {
    let mut pairs: Vec<(String, f64, f64)> = Vec::new();
    for f in published
        .figures
        .iter()
        .filter(|f| f.result_id == "server.stevens" && f.machine == COLUMN)
    {
        let design = f.params.get("design")?.as_str()?;
        if design == "iterative" {
            continue;
        }
        let e = doc.results.iter().find(|e| f.matches(e))?;
        pairs.push((design.to_string(), f.central()?, e.summary.median));
    }
    if pairs.len() < 4 {
        return None;
    }
    let rho = spearman(
        &pairs.iter().map(|p| p.1).collect::<Vec<_>>(),
        &pairs.iter().map(|p| p.2).collect::<Vec<_>>(),
    );
    let mut measured = pairs.clone();
    measured.sort_by(|a, b| a.2.total_cmp(&b.2));
    let fork_most = measured
        .last()
        .is_some_and(|p| p.0 == "fork-per-connection");
    let order: Vec<String> = measured
        .iter()
        .map(|(d, _, us)| format!("{d} {us:.1}"))
        .collect();
    let mut published_order = pairs.clone();
    published_order.sort_by(|a, b| a.1.total_cmp(&b.1));
    let explanation = format!(
        "Server CPU per connection beyond the iterative server's, us, cheapest first: {}. \
         Stevens's order (Solaris 2.5.1): {}. Rank correlation (Spearman) {rho:.2}; fork per \
         client is {} the most expensive here.",
        order.join(", "),
        published_order
            .iter()
            .map(|p| p.0.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        if fork_most { "still" } else { "no longer" }
    );
    let kind = match (fork_most, rho) {
        (true, r) if r >= 0.6 => VerdictKind::Confirmed,
        (_, r) if r < 0.2 => VerdictKind::Refuted,
        _ => VerdictKind::Depends,
    };
    let evidence = vec!["server.stevens".to_string()];
    verdict(published, "S0.stevens.order", kind, evidence, explanation)
}

/// Spearman's rank correlation (ties get their average rank).
fn spearman(a: &[f64], b: &[f64]) -> f64 {
    let (ra, rb) = (ranks(a), ranks(b));
    let n = ra.len() as f64;
    let mean = (n + 1.0) / 2.0;
    let cov: f64 = ra
        .iter()
        .zip(&rb)
        .map(|(x, y)| (x - mean) * (y - mean))
        .sum();
    let var = |r: &[f64]| r.iter().map(|x| (x - mean).powi(2)).sum::<f64>();
    cov / (var(&ra) * var(&rb)).sqrt().max(f64::MIN_POSITIVE)
}

fn ranks(v: &[f64]) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..v.len()).collect();
    idx.sort_by(|&i, &j| v[i].total_cmp(&v[j]));
    let mut out = vec![0.0; v.len()];
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && v[idx[j + 1]] == v[idx[i]] {
            j += 1;
        }
        for k in i..=j {
            out[idx[k]] = (i + j) as f64 / 2.0 + 1.0;
        }
        i = j + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spearman_of_same_and_reversed_orders() {
        let a = [1.0, 5.0, 3.0, 10.0];
        assert!((spearman(&a, &[2.0, 50.0, 4.0, 60.0]) - 1.0).abs() < 1e-12);
        assert!((spearman(&a, &[9.0, 1.0, 5.0, 0.0]) + 1.0).abs() < 1e-12);
        assert_eq!(ranks(&[3.0, 1.0, 3.0]), vec![2.5, 1.0, 2.5]);
    }
}
