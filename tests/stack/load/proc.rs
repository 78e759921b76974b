//! Running `fernzug` and measuring it: wall time and peak resident memory (GNU time's `%M` where
//! `/usr/bin/time` is installed, else VmHWM from /proc polled while the child runs), and the
//! daemon with its log lines timestamped as they arrive.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::common::Relay;

const GNU_TIME: &str = "/usr/bin/time";

/// The `fernzug` under test: `$FERNZUG_LOAD_BIN` (scripts/load sets a copy made right after its
/// build, so that another build in the same target dir cannot swap the binary in the middle of a
/// measurement), else the one cargo built beside this test.
pub fn bin() -> PathBuf {
    std::env::var_os("FERNZUG_LOAD_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_fernzug")))
}

/// `fernzug --config <relay's config> ARGS…` in the relay's directory, not started yet.
pub fn command(relay: &Relay, args: &[&str]) -> Command {
    let mut cmd = Command::new(bin());
    cmd.arg("--config")
        .arg(&relay.config)
        .args(args)
        .env_remove("FERNZUG_CONFIG")
        .current_dir(&relay.dir);
    cmd
}

/// Runs [`command`], asserting exit 0; its stdout.
pub fn run_ok(relay: &Relay, args: &[&str]) -> String {
    let out = command(relay, args)
        .output()
        .unwrap_or_else(|e| panic!("fernzug {args:?}: {e}"));
    assert!(
        out.status.success(),
        "fernzug {args:?} exited with {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// What one `fernzug` command did.
pub struct Ran {
    pub wall: Duration,
    /// Peak resident set size in KiB.
    pub rss_kb: Option<u64>,
    /// User + system CPU time (GNU time only).
    pub cpu: Option<Duration>,
    /// Where the CPU time went and what the run cost the kernel (GNU time only): user and system
    /// seconds, KiB written to the file system, voluntary and involuntary context switches.
    pub kernel: Option<Kernel>,
    /// Stopped at the limit of [`fernzug_within`]: `wall` is a lower bound.
    pub timed_out: bool,
    /// What it wrote to stderr (its log: `RUST_LOG=warn`, or `$FERNZUG_LOAD_RELAY_LOG`).
    pub stderr: String,
}

impl Ran {
    /// Prints, indented, what GNU time said of the run's kernel side and — with
    /// `FERNZUG_LOAD_RELAY_LOG=fernzug=debug` — the pass's own lines on where its time went.
    pub fn print_details(&self) {
        if let Some(kernel) = self.kernel {
            println!("  {kernel}");
        }
        for line in self
            .stderr
            .lines()
            .filter(|l| l.contains(" in ") && l.contains(" ms"))
        {
            println!("  {line}");
        }
    }
}

/// What GNU time says of a run beside its peak memory.
#[derive(Clone, Copy, Debug, Default)]
pub struct Kernel {
    pub user: f64,
    pub system: f64,
    pub written_kb: u64,
    pub waits: u64,
    pub preempted: u64,
}

impl std::fmt::Display for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "user {:.2} s, system {:.2} s, written {} KiB, switches {} waiting / {} preempted",
            self.user, self.system, self.written_kb, self.waits, self.preempted
        )
    }
}

/// `VmHWM` (peak resident set) of a live process, KiB.
pub fn vm_hwm_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

fn gnu_time() -> bool {
    static HAS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *HAS.get_or_init(|| {
        Command::new(GNU_TIME)
            .args(["-f", "%M", "true"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

/// `fernzug --config <relay> ARGS…` run to its end, asserting exit 0; wall time from spawn to
/// exit and the peak RSS.
pub fn fernzug(relay: &Relay, args: &[&str], envs: &[(&str, &str)]) -> Ran {
    fernzug_within(relay, args, envs, None)
}

/// With `FERNZUG_LOAD_PERF=DIR`: `fernzug ARGS…` once more under `perf record` (call graphs by
/// DWARF), its profile in `DIR/NAME.data` (`perf report -i …`); not measured. Without it,
/// nothing.
pub fn profile(relay: &Relay, args: &[&str], name: &str) {
    let Some(dir) = std::env::var_os("FERNZUG_LOAD_PERF") else {
        return;
    };
    let data = Path::new(&dir).join(format!("{name}.data"));
    // With FERNZUG_LOAD_PERF_ALL=1: every process of the machine while the command runs (who
    // shares the cores with the relay: `perf report --sort comm`), call graphs by frame pointer.
    let all = std::env::var_os("FERNZUG_LOAD_PERF_ALL").is_some_and(|v| v != "0");
    let graph: &[&str] = if all {
        &["-a", "-g"]
    } else {
        &["--call-graph", "dwarf,32768"]
    };
    // FERNZUG_LOAD_PERF_FREQ: samples a second (999 unless told; a short drain needs more).
    let freq = std::env::var("FERNZUG_LOAD_PERF_FREQ").unwrap_or_else(|_| "999".into());
    let status = Command::new("perf")
        .args(["record", "-F", &freq])
        .args(graph)
        .arg("-o")
        .arg(&data)
        .arg("--")
        .arg(bin())
        .arg("--config")
        .arg(&relay.config)
        .args(args)
        .env_remove("FERNZUG_CONFIG")
        .current_dir(&relay.dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    println!(
        "perf record of `fernzug {}`: {status:?} → {}",
        args.join(" "),
        data.display()
    );
}

/// The child processes of `pid` (/proc/PID/task/PID/children).
fn children(pid: u32) -> Vec<u32> {
    std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect()
}

fn terminate(pid: u32) {
    let _ = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status();
}

/// As [`fernzug`], but stopped (SIGTERM) after `limit`: then `timed_out` is set, `wall` is the
/// limit (a lower bound) and the exit status is not asserted.
pub fn fernzug_within(
    relay: &Relay,
    args: &[&str],
    envs: &[(&str, &str)],
    limit: Option<Duration>,
) -> Ran {
    let bin = bin();
    let rss_file = relay
        .dir
        .join(format!("rss-{}", crate::common::unique("m")));
    let mut cmd = if gnu_time() {
        let mut c = Command::new(GNU_TIME);
        c.arg("-f")
            .arg("%U %S %M %O %w %c")
            .arg("-o")
            .arg(&rss_file)
            .arg(&bin);
        c
    } else {
        Command::new(&bin)
    };
    cmd.arg("--config")
        .arg(&relay.config)
        .args(args)
        .env_remove("FERNZUG_CONFIG")
        .env(
            "RUST_LOG",
            std::env::var("FERNZUG_LOAD_RELAY_LOG").unwrap_or_else(|_| "warn".into()),
        )
        .current_dir(&relay.dir);
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let out_file = relay
        .dir
        .join(format!("out-{}", crate::common::unique("m")));
    let err_file = relay
        .dir
        .join(format!("err-{}", crate::common::unique("m")));
    cmd.stdout(std::fs::File::create(&out_file).expect("stdout file"))
        .stderr(std::fs::File::create(&err_file).expect("stderr file"));
    let started = Instant::now();
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("fernzug {args:?}: {e}"));
    let mut polled = None;
    let mut timed_out = false;
    let status = loop {
        if let Some(s) = child.try_wait().expect("try_wait") {
            break s;
        }
        if !gnu_time() {
            polled = vm_hwm_kb(child.id()).or(polled);
        }
        if limit.is_some_and(|l| started.elapsed() >= l) {
            // GNU time waits for its child: stop the relay under it, then it.
            for c in children(child.id()) {
                polled = vm_hwm_kb(c).or(polled);
                terminate(c);
            }
            terminate(child.id());
            timed_out = true;
            break child.wait().expect("wait");
        }
        let step = Duration::from_millis(1) + started.elapsed() / 100;
        std::thread::sleep(step.min(Duration::from_millis(50)));
    };
    let wall = limit
        .filter(|_| timed_out)
        .unwrap_or_else(|| started.elapsed());
    let read = |p: &Path| {
        let s = std::fs::read_to_string(p).unwrap_or_default();
        let _ = std::fs::remove_file(p);
        s
    };
    let stdout = read(&out_file);
    let stderr = read(&err_file);
    // GNU time's last line: user and system seconds, peak RSS in KiB, blocks (512 bytes) written,
    // voluntary and involuntary context switches.
    let timed = if gnu_time() {
        read(&rss_file)
    } else {
        String::new()
    };
    let fields: Vec<&str> = timed
        .lines()
        .rev()
        .find(|l| l.split_whitespace().count() == 6)
        .map(|l| l.split_whitespace().collect())
        .unwrap_or_default();
    let rss_kb = if gnu_time() {
        fields.get(2).and_then(|f| f.parse().ok())
    } else {
        polled
    };
    let cpu = match (fields.first(), fields.get(1)) {
        (Some(u), Some(s)) => match (u.parse::<f64>(), s.parse::<f64>()) {
            (Ok(u), Ok(s)) => Some(Duration::from_secs_f64(u + s)),
            _ => None,
        },
        _ => None,
    };
    let number = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok());
    let kernel = match (number(0), number(1), number(3), number(4), number(5)) {
        (Some(user), Some(system), Some(blocks), Some(waits), Some(preempted)) => Some(Kernel {
            user,
            system,
            written_kb: blocks as u64 / 2,
            waits: waits as u64,
            preempted: preempted as u64,
        }),
        _ => None,
    };
    assert!(
        timed_out || status.success(),
        "fernzug {args:?} exited with {status}\nstdout:\n{}\nstderr:\n{stderr}",
        stdout.chars().take(4000).collect::<String>()
    );
    Ran {
        wall,
        rss_kb,
        cpu,
        kernel,
        timed_out,
        stderr,
    }
}

/// `fernzug run` with its stderr read line by line, each line with the instant it arrived.
pub struct Daemon {
    pub child: Child,
    pub started: Instant,
    lines: mpsc::Receiver<(Instant, String)>,
    /// Every line read so far.
    pub log: Vec<(Instant, String)>,
    cursors: std::collections::HashMap<String, usize>,
}

impl Daemon {
    pub fn spawn(relay: &Relay, rust_log: &str) -> Daemon {
        let started = Instant::now();
        let mut child = command(relay, &["run"])
            .env("RUST_LOG", rust_log)
            .env("NO_COLOR", "1")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn fernzug run");
        let err = child.stderr.take().expect("stderr");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines() {
                let Ok(line) = line else { break };
                if tx.send((Instant::now(), line)).is_err() {
                    break;
                }
            }
        });
        Daemon {
            child,
            started,
            lines: rx,
            log: Vec::new(),
            cursors: Default::default(),
        }
    }

    /// The next line containing `needle` after the one this returned for `needle` last (lines
    /// read while waiting for another needle count too), waiting up to `timeout` for it.
    pub fn wait_line(&mut self, needle: &str, timeout: Duration) -> Option<(Instant, String)> {
        let from = self.cursors.get(needle).copied().unwrap_or(0);
        if let Some(i) = (from..self.log.len()).find(|&i| self.log[i].1.contains(needle)) {
            self.cursors.insert(needle.to_string(), i + 1);
            return Some(self.log[i].clone());
        }
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok((at, line)) => {
                    self.log.push((at, line.clone()));
                    if line.contains(needle) {
                        self.cursors.insert(needle.to_string(), self.log.len());
                        return Some((at, line));
                    }
                }
                Err(_) => return None,
            }
        }
    }

    /// The CPU time (user + system) it used so far.
    pub fn cpu(&self) -> Option<Duration> {
        cpu_time(self.child.id())
    }

    /// Waits until its CPU time has not grown for `quiet` (polled every 10 ms, up to `timeout`);
    /// the instant it last grew. The log-free way to see that a pass is over.
    pub fn wait_quiet(&self, quiet: Duration, timeout: Duration) -> Option<Instant> {
        let deadline = Instant::now() + timeout;
        let mut last = (self.cpu()?, Instant::now());
        while Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
            let now = self.cpu()?;
            if now != last.0 {
                last = (now, Instant::now());
            } else if last.1.elapsed() >= quiet {
                return Some(last.1);
            }
        }
        None
    }

    /// Stops it with SIGTERM (by its pid) and waits; its peak RSS (VmHWM) read just before.
    pub fn stop(mut self) -> Option<u64> {
        let rss = vm_hwm_kb(self.child.id());
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
        rss
    }
}

/// utime + stime of a live process (/proc/PID/stat, in clock ticks of `getconf CLK_TCK`).
pub fn cpu_time(pid: u32) -> Option<Duration> {
    static TICK: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    let hz = *TICK.get_or_init(|| {
        Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()
            .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse().ok())
            .unwrap_or(100)
    });
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command name (which may hold spaces) in parentheses.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    // Fields 14 and 15 of the whole line are 12 and 13 after the name.
    let ticks: u64 = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_micros(ticks * 1_000_000 / hz.max(1)))
}

/// `N` of a log line `… pass finished in N ms …`.
pub fn pass_ms(line: &str) -> Option<f64> {
    let rest = &line[line.find("pass finished in ")? + "pass finished in ".len()..];
    let n: String = rest
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    n.parse().ok()
}

/// The machine's CPU time since boot from `/proc/stat`'s `cpu` line: (busy, all), in clock ticks
/// (user, nice, system, irq, softirq and steal are busy; idle and iowait are not).
fn machine_ticks() -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .filter_map(|x| x.parse().ok())
        .collect();
    let all: u64 = v.iter().take(8).sum();
    let idle = v.get(3).copied().unwrap_or(0) + v.get(4).copied().unwrap_or(0);
    Some((all - idle, all))
}

/// The machine's busy and all CPU ticks between two [`machine_ticks`], if both were read and
/// time passed.
fn ticks_between(before: Option<(u64, u64)>, after: Option<(u64, u64)>) -> Option<(u64, u64)> {
    match (before, after) {
        (Some((b0, a0)), Some((b1, a1))) if a1 > a0 => Some((b1 - b0, a1 - a0)),
        _ => None,
    }
}

/// Waits until the machine is quiet — less than a tenth of its cores busy over 100 ms — or 10 s
/// have passed, and says how long that took: a measurement that starts while the stack still
/// finishes the work before it (a delivery's index updates, queue files removed, processes
/// ending) pays for that work. Both sides of a comparison start after it.
pub fn settle() -> Duration {
    let started = Instant::now();
    let mut before = machine_ticks();
    while started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(100));
        let now = machine_ticks();
        match ticks_between(before, now) {
            Some((busy, all)) if busy * 10 >= all => before = now,
            _ => break,
        }
    }
    started.elapsed()
}

/// Busy work of a known cost: a bare client that spends so many core-milliseconds a move beside
/// handing its mails over stands for a relay of that CPU that does nothing else to the machine —
/// what such a relay could reach at best. Calibrated after [`settle`]: the fastest of five timed
/// rounds alone on a core; under load a round may cost more, so a measurement reads what was
/// spent from the process's ticks ([`Watch`]).
#[derive(Debug, Clone, Copy)]
pub struct Spin {
    rounds_a_ms: f64,
}

impl Spin {
    pub fn calibrate() -> Spin {
        const ROUNDS: u64 = 4_000_000;
        settle();
        let fastest = (0..5)
            .map(|_| {
                let started = Instant::now();
                spin(ROUNDS);
                started.elapsed()
            })
            .min()
            .unwrap_or(Duration::from_millis(1));
        Spin {
            rounds_a_ms: ROUNDS as f64 / (fastest.as_secs_f64() * 1e3).max(1e-3),
        }
    }

    /// Spends about `ms` milliseconds of one core.
    pub fn burn(self, ms: f64) {
        spin((ms * self.rounds_a_ms) as u64);
    }
}

/// `rounds` steps of xorshift: each depends on the one before, so none can be skipped.
fn spin(rounds: u64) -> u64 {
    let mut x = 0x9E37_79B9_7F4A_7C15_u64;
    for _ in 0..std::hint::black_box(rounds) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    std::hint::black_box(x)
}

/// Every process of the machine by its pid: its name and its CPU ticks (user + system).
type ProcessTicks = std::collections::HashMap<u32, (String, u64)>;

/// The [`ProcessTicks`] of now: a [`Watch`] takes them before and after a measurement and says
/// who spent the cores in it.
fn process_ticks() -> ProcessTicks {
    let mut all = ProcessTicks::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return all;
    };
    for entry in dir.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // `pid (comm) state ppid …`: utime and stime are the 14th and 15th fields.
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let name = stat[open + 1..close].to_string();
        let rest: Vec<&str> = stat[close + 1..].split_whitespace().collect();
        let ticks = rest
            .get(11..13)
            .map(|t| t.iter().filter_map(|x| x.parse::<u64>().ok()).sum())
            .unwrap_or(0);
        all.insert(pid, (name, ticks));
    }
    all
}

/// Watches what the whole machine (the relay, Postfix, Dovecot, the test itself) spends over a
/// measurement: started before it, [`Watch::stop`] after.
pub struct Watch {
    machine: Option<(u64, u64)>,
    processes: ProcessTicks,
}

/// What the machine spent over a [`Watch`], per unit of work (a move).
pub struct Spent {
    /// Core-milliseconds a unit, and the share of all cores busy.
    pub machine: Option<(f64, f64)>,
    /// Core-milliseconds a unit by process name, the largest first (processes that ended in
    /// between are not counted; nor is a command run for the measurement, which has ended by
    /// then: its own CPU is `Ran::cpu`).
    pub by_name: Vec<(String, f64)>,
}

impl Watch {
    pub fn start() -> Watch {
        Watch {
            machine: machine_ticks(),
            processes: process_ticks(),
        }
    }

    pub fn stop(&self, units: usize) -> Spent {
        let (machine, processes) = (machine_ticks(), process_ticks());
        let units = units.max(1) as f64;
        // USER_HZ is 100 on Linux: one tick is 10 ms of one core.
        let machine = ticks_between(self.machine, machine)
            .map(|(busy, all)| (busy as f64 * 10.0 / units, busy as f64 / all as f64));
        let mut by_name: std::collections::BTreeMap<&str, u64> = Default::default();
        for (pid, (name, ticks)) in &processes {
            // By pid alone (a name may change); a pid used again by a new process (fewer ticks
            // than before) counts from nothing.
            let was = match self.processes.get(pid) {
                Some((_, t)) if t <= ticks => *t,
                _ => 0,
            };
            // The kernel's workers change their names with the work they do: one line for all.
            let name = if name.starts_with("kworker/") {
                "kworkers"
            } else {
                name.as_str()
            };
            *by_name.entry(name).or_default() += ticks - was;
        }
        let mut by_name: Vec<(String, f64)> = by_name
            .into_iter()
            .filter(|(_, t)| *t > 0)
            .map(|(name, t)| (name.to_string(), t as f64 * 10.0 / units))
            .collect();
        by_name.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        Spent { machine, by_name }
    }
}

impl Spent {
    /// Core-milliseconds a unit of the processes named `name`.
    pub fn of(&self, name: &str) -> f64 {
        self.by_name
            .iter()
            .find(|(n, _)| n == name)
            .map_or(0.0, |(_, ms)| *ms)
    }
}

impl std::fmt::Display for Spent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.machine {
            Some((ms, busy)) => write!(
                f,
                "the machine: {ms:.2} core-ms a move, {:.0} % of its cores busy",
                busy * 100.0
            )?,
            None => write!(f, "the machine: no /proc/stat")?,
        }
        let largest: Vec<String> = self
            .by_name
            .iter()
            .take(10)
            .map(|(name, ms)| format!("{name} {ms:.2}"))
            .collect();
        write!(f, "; by process: {}", largest.join(", "))
    }
}
