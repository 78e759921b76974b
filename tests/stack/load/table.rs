//! The measurement's vocabulary: samples and their median and spread, the sizes from the
//! environment, and the rows of the Markdown table.

use std::io::Write;
use std::time::Duration;

/// Samples of one quantity (sorted ascending).
#[derive(Debug, Clone, Default)]
pub struct Stats {
    sorted: Vec<f64>,
}

impl Stats {
    pub fn new(mut samples: Vec<f64>) -> Stats {
        samples.sort_by(f64::total_cmp);
        Stats { sorted: samples }
    }

    pub fn of_ms(samples: &[Duration]) -> Stats {
        Stats::new(samples.iter().map(|d| d.as_secs_f64() * 1e3).collect())
    }

    pub fn len(&self) -> usize {
        self.sorted.len()
    }

    pub fn is_empty(&self) -> bool {
        self.sorted.is_empty()
    }

    /// The median (the mean of the two middle samples for an even count).
    pub fn median(&self) -> f64 {
        let n = self.sorted.len();
        if n == 0 {
            return f64::NAN;
        }
        if n % 2 == 1 {
            self.sorted[n / 2]
        } else {
            (self.sorted[n / 2 - 1] + self.sorted[n / 2]) / 2.0
        }
    }

    /// The nearest-rank percentile `q` (0 < q ≤ 1).
    pub fn pct(&self, q: f64) -> f64 {
        let n = self.sorted.len();
        if n == 0 {
            return f64::NAN;
        }
        let rank = (q * n as f64).ceil().max(1.0) as usize;
        self.sorted[rank.min(n) - 1]
    }

    pub fn min(&self) -> f64 {
        self.sorted.first().copied().unwrap_or(f64::NAN)
    }

    pub fn max(&self) -> f64 {
        self.sorted.last().copied().unwrap_or(f64::NAN)
    }

    /// `median unit` and, for more than one sample, `(min–max)`.
    pub fn show(&self, unit: &str) -> String {
        if self.sorted.len() > 1 {
            format!(
                "{} {unit} ({}–{})",
                num(self.median()),
                num(self.min()),
                num(self.max())
            )
        } else {
            format!("{} {unit}", num(self.median()))
        }
    }

    /// `p50 / p99 ms`.
    pub fn p50_p99_ms(&self) -> String {
        format!("{} / {} ms", num(self.pct(0.5)), num(self.pct(0.99)))
    }
}

/// Three significant digits or so, with thin grouping for large numbers.
pub fn num(x: f64) -> String {
    if !x.is_finite() {
        return "—".to_string();
    }
    let a = x.abs();
    if a >= 1000.0 {
        let s = format!("{:.0}", x);
        let (sign, digits) = s.strip_prefix('-').map(|d| ("-", d)).unwrap_or(("", &s));
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                out.push(',');
            }
            out.push(c);
        }
        format!("{sign}{out}")
    } else if a >= 100.0 {
        format!("{:.0}", x)
    } else if a >= 10.0 {
        format!("{:.1}", x)
    } else if a >= 1.0 || a == 0.0 {
        format!("{:.2}", x)
    } else {
        // Two significant digits: 0.16, 0.050, 0.0013.
        let decimals = (1.0 - a.log10().floor()).clamp(2.0, 9.0) as usize;
        format!("{x:.decimals$}")
    }
}

/// A count, with thousands separated by commas.
pub fn count(n: usize) -> String {
    if n < 1000 {
        n.to_string()
    } else {
        num(n as f64)
    }
}

/// A size in KiB as MiB.
pub fn mib(kb: Option<u64>) -> String {
    match kb {
        Some(kb) => format!("{} MiB", num(kb as f64 / 1024.0)),
        None => "—".to_string(),
    }
}

/// What a ratio relay/floor must be.
#[derive(Debug, Clone, Copy)]
pub enum Goal {
    AtLeast(f64),
    AtMost(f64),
    None,
}

/// One line of the table.
#[derive(Debug, Clone)]
pub struct Row {
    pub what: String,
    pub floor: String,
    pub relay: String,
    /// relay / floor (rates: relay rate over floor rate; times: relay time over floor time).
    pub ratio: Option<f64>,
    pub goal: Goal,
    /// `p50 / p99` where it applies.
    pub pctl: String,
    /// The relay's peak resident memory where measured.
    pub rss: String,
    /// A check beside the measurement failed (named here; the row's `ok?` says `no`).
    pub failed: Option<String>,
}

impl Row {
    pub fn new(what: impl Into<String>) -> Row {
        Row {
            what: what.into(),
            floor: "—".into(),
            relay: "—".into(),
            ratio: None,
            goal: Goal::None,
            pctl: "—".into(),
            rss: "—".into(),
            failed: None,
        }
    }

    fn ok(&self) -> String {
        if let Some(f) = &self.failed {
            return format!("no: {f}");
        }
        match (self.goal, self.ratio) {
            (Goal::AtLeast(g), Some(r)) => yes_no(r >= g),
            (Goal::AtMost(g), Some(r)) => yes_no(r <= g),
            _ => "—".to_string(),
        }
    }

    pub fn line(&self) -> String {
        let ratio = self
            .ratio
            .map(|r| format!("{}×", num(r)))
            .unwrap_or_else(|| "—".into());
        let goal = match self.goal {
            Goal::AtLeast(g) => format!("≥ {g:.2}×"),
            Goal::AtMost(g) => format!("≤ {g:.2}×"),
            Goal::None => "—".into(),
        };
        format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            self.what,
            self.floor,
            self.relay,
            ratio,
            goal,
            self.ok(),
            self.pctl,
            self.rss
        )
    }
}

fn yes_no(b: bool) -> String {
    if b { "yes" } else { "no" }.to_string()
}

pub const HEADER: &str = "| what | floor | relay | ratio | goal | ok? | p50 / p99 | RSS |\n\
                          |---|---|---|---|---|---|---|---|";

/// Prints `rows` as a Markdown table and appends them to `$FERNZUG_LOAD_TABLE` (scripts/load
/// prints that file's rows as one table at the end).
pub fn emit(rows: &[Row]) {
    let mut text = String::new();
    for r in rows {
        text.push_str(&r.line());
        text.push('\n');
    }
    println!("\n{HEADER}\n{text}");
    if let Some(path) = std::env::var_os("FERNZUG_LOAD_TABLE") {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .expect("FERNZUG_LOAD_TABLE");
        f.write_all(text.as_bytes()).expect("FERNZUG_LOAD_TABLE");
    }
}

/// Prints one measured row at once (progress while a long measurement runs).
pub fn progress(row: &Row) {
    println!("{}", row.line());
}

/// The sizes, from the environment (`FERNZUG_LOAD_*`); `FERNZUG_LOAD_QUICK=1` makes every default
/// small.
#[derive(Debug, Clone)]
pub struct Sizes {
    /// Waiting move mails of each burst.
    pub burst: Vec<usize>,
    /// Games of the hand-off tournament (two start mails each).
    pub handoff_games: usize,
    /// Latency samples.
    pub latency: usize,
    /// Mails the relay has read before the latency's daemon starts, left in its mailbox (as
    /// years of players' mail are).
    pub history: usize,
    /// (running, finished) games of the large store.
    pub scale: (usize, usize),
    /// (running, finished) games of the small store beside it.
    pub scale_small: (usize, usize),
    /// Games of the tournament `tournament add` registers into either store.
    pub add: usize,
    /// A P4 command (`status`, `once`, `tournament add`) still running after this is stopped
    /// and reported as at least this long.
    pub limit: std::time::Duration,
    /// Repetitions of each rate measurement (bursts above 1,000 mails run once).
    pub runs: usize,
}

impl Sizes {
    pub fn from_env() -> Sizes {
        let quick = std::env::var("FERNZUG_LOAD_QUICK").is_ok_and(|v| !v.is_empty() && v != "0");
        let list = |key: &str, default: &[usize]| -> Vec<usize> {
            match std::env::var(key) {
                Ok(v) if !v.trim().is_empty() => v
                    .split(',')
                    .map(|s| {
                        s.trim()
                            .replace('_', "")
                            .parse()
                            .unwrap_or_else(|e| panic!("{key}={v:?}: {e}"))
                    })
                    .collect(),
                _ => default.to_vec(),
            }
        };
        let pair = |key: &str, default: (usize, usize)| -> (usize, usize) {
            let v = list(key, &[default.0, default.1]);
            assert!(v.len() == 2, "{key}: RUNNING,FINISHED");
            (v[0], v[1])
        };
        let one = |key: &str, default: usize| list(key, &[default])[0];
        let secs = |s: usize| std::time::Duration::from_secs(s as u64);
        if quick {
            Sizes {
                burst: list("FERNZUG_LOAD_BURST", &[100]),
                handoff_games: one("FERNZUG_LOAD_HANDOFF", 45),
                latency: one("FERNZUG_LOAD_LATENCY", 10),
                history: one("FERNZUG_LOAD_HISTORY", 0),
                scale: pair("FERNZUG_LOAD_SCALE", (300, 1_000)),
                scale_small: pair("FERNZUG_LOAD_SCALE_SMALL", (20, 100)),
                add: one("FERNZUG_LOAD_ADD", 500),
                limit: secs(one("FERNZUG_LOAD_LIMIT", 120)),
                runs: one("FERNZUG_LOAD_RUNS", 1),
            }
        } else {
            Sizes {
                burst: list("FERNZUG_LOAD_BURST", &[1_000, 10_000]),
                handoff_games: one("FERNZUG_LOAD_HANDOFF", 990),
                latency: one("FERNZUG_LOAD_LATENCY", 40),
                history: one("FERNZUG_LOAD_HISTORY", 0),
                scale: pair("FERNZUG_LOAD_SCALE", (10_000, 100_000)),
                scale_small: pair("FERNZUG_LOAD_SCALE_SMALL", (100, 1_000)),
                add: one("FERNZUG_LOAD_ADD", 10_000),
                limit: secs(one("FERNZUG_LOAD_LIMIT", 900)),
                runs: one("FERNZUG_LOAD_RUNS", 3),
            }
        }
    }
}
