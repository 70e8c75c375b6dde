//! Does a nominal 95% interval cover the true value 95% of the time? A seeded simulation.
//!
//! Each case draws `TRIALS` samples of size n = 6, 10 and 20 from a distribution whose median
//! is known in closed form — skewed (log-normal, exponential, Pareto) and bimodal (a 70/30 and
//! an 80/20 mixture of two far-apart uniforms, like a wake-up that sometimes finds its CPU
//! halted) — and counts how often the interval holds the true median. With 2,000 trials the
//! standard error of a 95% coverage is 0.5 percentage points, so [93%, 97%] is four of them
//! either side. The seed is fixed: the test is deterministic.

use concbench_stats::{median_interval, paired_ratio, shift_ratio};

const TRIALS: usize = 2000;
const SIZES: [usize; 3] = [6, 10, 20];

struct Dist {
    name: &'static str,
    median: f64,
    draw: fn(&mut fastrand::Rng) -> f64,
}

fn normal(rng: &mut fastrand::Rng) -> f64 {
    // Box-Muller; 1 - f64() is in (0, 1], so the logarithm is finite.
    let (u, v) = (1.0 - rng.f64(), rng.f64());
    (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
}

fn uniform(rng: &mut fastrand::Rng, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) * rng.f64()
}

const DISTRIBUTIONS: [Dist; 5] = [
    Dist {
        name: "log-normal(0, 1)",
        median: 1.0,
        draw: |r| normal(r).exp(),
    },
    Dist {
        name: "exponential(1)",
        median: std::f64::consts::LN_2,
        draw: |r| -(1.0 - r.f64()).ln(),
    },
    Dist {
        name: "Pareto(1.5)",
        // 2^(1/1.5)
        median: 1.587_401_051_968_199_4,
        draw: |r| (1.0 - r.f64()).powf(-1.0 / 1.5),
    },
    Dist {
        name: "70% U(1,2) + 30% U(50,100)",
        median: 1.0 + 0.5 / 0.7,
        draw: |r| {
            if r.f64() < 0.7 {
                uniform(r, 1.0, 2.0)
            } else {
                uniform(r, 50.0, 100.0)
            }
        },
    },
    Dist {
        name: "80% U(1,2) + 20% U(50,100)",
        median: 1.625,
        draw: |r| {
            if r.f64() < 0.8 {
                uniform(r, 1.0, 2.0)
            } else {
                uniform(r, 50.0, 100.0)
            }
        },
    },
];

fn coverage(mut hit: impl FnMut(&mut fastrand::Rng) -> bool, seed: u64) -> f64 {
    let mut rng = fastrand::Rng::with_seed(seed);
    (0..TRIALS).filter(|_| hit(&mut rng)).count() as f64 / TRIALS as f64
}

/// Every (distribution, n) coverage, printed so `cargo test -- --nocapture` shows the table.
fn report(what: &str, rows: &[(String, usize, f64)]) {
    for (name, n, c) in rows {
        println!("{what}: {name:<28} n = {n:>2}: {:.1}%", c * 100.0);
    }
}

#[test]
fn the_median_interval_covers_the_true_median_93_to_97_percent_of_the_time() {
    let mut rows = Vec::new();
    for (d, dist) in DISTRIBUTIONS.iter().enumerate() {
        for n in SIZES {
            let c = coverage(
                |rng| {
                    let xs: Vec<f64> = (0..n).map(|_| (dist.draw)(rng)).collect();
                    let (lo, hi) = median_interval(&xs, 0.95).expect("n >= 6");
                    lo <= dist.median && dist.median <= hi
                },
                1000 + (d * 100 + n) as u64,
            );
            rows.push((dist.name.to_string(), n, c));
        }
    }
    report("median", &rows);
    for (name, n, c) in &rows {
        assert!((0.93..=0.97).contains(c), "{name}, n = {n}: coverage {c}");
    }
}

#[test]
fn the_paired_ratio_interval_covers_the_true_median_ratio() {
    // B = A x R, with R drawn from a skewed or bimodal distribution of known median: the
    // parameter is the median of B / A, whatever A is.
    let mut rows = Vec::new();
    for (d, dist) in DISTRIBUTIONS.iter().enumerate() {
        for n in SIZES {
            let c = coverage(
                |rng| {
                    let a: Vec<f64> = (0..n).map(|_| 1000.0 * (1.0 + rng.f64())).collect();
                    let b: Vec<f64> = a.iter().map(|x| x * (dist.draw)(rng)).collect();
                    let (_, ci) = paired_ratio(&a, &b, 0.95).expect("positive values");
                    let (lo, hi) = ci.expect("n >= 6");
                    lo <= dist.median && dist.median <= hi
                },
                2000 + (d * 100 + n) as u64,
            );
            rows.push((dist.name.to_string(), n, c));
        }
    }
    report("paired ratio", &rows);
    for (name, n, c) in &rows {
        assert!((0.93..=0.97).contains(c), "{name}, n = {n}: coverage {c}");
    }
}

#[test]
fn the_unpaired_ratio_interval_covers_the_true_ratio_under_a_shift() {
    // Two runs: B's values are A's distribution scaled by 1.3. The Mann-Whitney interval is
    // exact under this model (its levels are discrete, but close to 95% here).
    const RATIO: f64 = 1.3;
    let mut rows = Vec::new();
    for (d, dist) in DISTRIBUTIONS.iter().enumerate() {
        for n in SIZES {
            let c = coverage(
                |rng| {
                    let a: Vec<f64> = (0..n).map(|_| (dist.draw)(rng)).collect();
                    let b: Vec<f64> = (0..n).map(|_| RATIO * (dist.draw)(rng)).collect();
                    let s = shift_ratio(&a, &b, 0.95).expect("positive values");
                    let (lo, hi) = s.ci.expect("n >= 6");
                    lo <= RATIO && RATIO <= hi
                },
                3000 + (d * 100 + n) as u64,
            );
            rows.push((dist.name.to_string(), n, c));
        }
    }
    report("unpaired ratio", &rows);
    for (name, n, c) in &rows {
        assert!((0.93..=0.97).contains(c), "{name}, n = {n}: coverage {c}");
    }
}

/// The looks of a quick run: judged after every pass from six rounds to the cap of twenty.
const FIRST_LOOK: usize = 6;
const CAP: usize = 20;

/// One run of paired rounds: pass `i` measures A and B seconds apart, in a shuffled order, on a
/// machine whose speed drifts as a random walk (±5% between two rounds, so ±30% over a run, as
/// the development VM did within minutes); B / A is `truth` times noise of median 1 drawn from
/// `dist`, times the drift between the two slots, which the shuffled order makes symmetric.
fn drifting_run(rng: &mut fastrand::Rng, dist: &Dist, truth: f64, n: usize) -> Vec<f64> {
    let mut speed = 1.0f64;
    (0..n)
        .map(|_| {
            let first = speed;
            speed *= (0.05 * normal(rng)).exp();
            let second = speed;
            speed *= (0.05 * normal(rng)).exp();
            let (slot_a, slot_b) = if rng.bool() {
                (first, second)
            } else {
                (second, first)
            };
            let a = 1000.0 * (1.0 + 0.1 * rng.f64());
            let b = a * truth * (dist.draw)(rng) / dist.median;
            (b * slot_b) / (a * slot_a)
        })
        .collect()
}

/// Whether the boundary's interval at a look with `xs.len()` rounds excludes `margin` (a
/// decision on either side).
fn decides(xs: &[f64], margin: f64) -> bool {
    concbench_stats::sequential_interval(xs, FIRST_LOOK, CAP, concbench_stats::SEQUENTIAL_ALPHA)
        .is_some_and(|(lo, hi)| margin < lo || hi < margin)
}

#[test]
fn the_sequential_boundary_errs_at_most_5_percent_over_every_look_with_drift() {
    // The truth on the margin (1.15): any decision, at any look from 6 to 20 rounds, is an
    // error. Decisions stop the check, as the adaptive rounds do. A truth off the margin (1.3):
    // the boundary's interval must hold it at every look (simultaneous coverage).
    const MARGIN: f64 = 1.15;
    let mut rows = Vec::new();
    for (d, dist) in DISTRIBUTIONS.iter().enumerate() {
        let error = 1.0
            - coverage(
                |rng| {
                    let xs = drifting_run(rng, dist, MARGIN, CAP);
                    !(FIRST_LOOK..=CAP).any(|n| decides(&xs[..n], MARGIN))
                },
                4000 + d as u64,
            );
        let cover = coverage(
            |rng| {
                let xs = drifting_run(rng, dist, 1.3, CAP);
                (FIRST_LOOK..=CAP).all(|n| !decides(&xs[..n], 1.3))
            },
            5000 + d as u64,
        );
        println!(
            "sequential, looks 6-20, drifting machine: {:<28} error {:.1}%, coverage {:.1}%",
            dist.name,
            error * 100.0,
            cover * 100.0
        );
        rows.push((dist.name, error, cover));
    }
    // The fixed 95% interval at every look, for the record: what the boundary replaces.
    let fixed = 1.0
        - coverage(
            |rng| {
                let xs = drifting_run(rng, &DISTRIBUTIONS[0], MARGIN, CAP);
                !(FIRST_LOOK..=CAP).any(|n| {
                    median_interval(&xs[..n], 0.95)
                        .is_some_and(|(lo, hi)| MARGIN < lo || hi < MARGIN)
                })
            },
            4100,
        );
    println!(
        "sequential, a fixed 95% interval at every look instead: error {:.1}%",
        fixed * 100.0
    );
    assert!(fixed > 0.08, "the fixed interval's error {fixed}");
    for (name, error, cover) in rows {
        assert!(error <= 0.05, "{name}: realised error {error}");
        assert!((0.93..=0.97).contains(&cover), "{name}: coverage {cover}");
    }
}

/// A round's value: `dist`'s shape with its spread in logarithms scaled to 15% of its own (the
/// rounds of one run on the development VM spread by 10-20%), median unchanged.
fn rounds(rng: &mut fastrand::Rng, dist: &Dist) -> f64 {
    dist.median * ((dist.draw)(rng) / dist.median).powf(0.15)
}

#[test]
fn the_random_effects_interval_covers_the_hosts_value_across_drifting_runs() {
    // Five runs of 6-20 rounds; each run's level differs from the host's by a log-normal
    // factor (σ = 0.1: runs 10% apart, as the development VM's were within an afternoon). The
    // interval over runs then rounds, on logarithms, must hold the host's median 93-97% of the
    // time; one run's own interval holds it far less often — that is the gap it closes.
    // Asserted on the unimodal shapes: a two-mode figure's median over an even number of rounds
    // can average one value of each mode (86.8% and 92.2% here), which is why no verdict may rest
    // on a bimodal figure's median.
    const RUNS: usize = 5;
    let mut rows = Vec::new();
    for (d, dist) in DISTRIBUTIONS.iter().enumerate() {
        let pooled = coverage(
            |rng| {
                let runs: Vec<Vec<f64>> = (0..RUNS)
                    .map(|_| {
                        let offset = (0.1 * normal(rng)).exp();
                        let n = 6 + rng.usize(..15);
                        (0..n).map(|_| (rounds(rng, dist) * offset).ln()).collect()
                    })
                    .collect();
                let refs: Vec<&[f64]> = runs.iter().map(Vec::as_slice).collect();
                let p = concbench_stats::random_effects(&refs, 0.95).expect("five runs");
                p.ci.0 <= dist.median.ln() && dist.median.ln() <= p.ci.1
            },
            6000 + d as u64,
        );
        let alone = coverage(
            |rng| {
                let offset = (0.1 * normal(rng)).exp();
                let xs: Vec<f64> = (0..10).map(|_| rounds(rng, dist) * offset).collect();
                let (lo, hi) = median_interval(&xs, 0.95).expect("ten rounds");
                lo <= dist.median && dist.median <= hi
            },
            6100 + d as u64,
        );
        println!(
            "over {RUNS} drifting runs: {:<28} random effects {:.1}%, one run alone {:.1}%",
            dist.name,
            pooled * 100.0,
            alone * 100.0
        );
        rows.push((dist.name, pooled));
    }
    for (name, c) in rows.into_iter().take(3) {
        assert!((0.93..=0.97).contains(&c), "{name}: coverage {c}");
    }
}
