//! The SMTP hand-off: the start mails of a tournament (`tournament add` queues two per game)
//! delivered by ONE `fernzug once`, against a bare client sending the same mails over one
//! connection to the same server — the in-process sink and Postfix.

use std::collections::BTreeMap;
use std::time::Duration;

use super::proc::fernzug;
use super::setup::{smtp_to_postfix, started_at_sink, tournament, wait_total};
use super::table::{Goal, Row, Sizes, Stats, count, mib, progress};
use super::wire::{Sink, bare_send};
use crate::common::{Relay, SMTP_PORT};

pub fn rows(sizes: &Sizes) -> Vec<Row> {
    let games = sizes.handoff_games;
    let mails = 2 * games;
    let sink = Sink::start();
    let mut sink_floor = Vec::new();
    let mut sink_relay = Vec::new();
    let mut sink_ratio = Vec::new();
    let mut pf_floor = Vec::new();
    let mut pf_relay = Vec::new();
    let mut pf_ratio = Vec::new();
    let (mut sink_rss, mut pf_rss) = (None, None);
    for run in 0..sizes.runs.max(1) {
        // To the sink: the relay, then the bare client with the very mails the relay sent.
        let relay = Relay::new("load-handoff-sink");
        let (_, _, ran, captured) = started_at_sink(&relay, "h", games, &sink);
        let sent = captured.len();
        let r = sent as f64 / ran.wall.as_secs_f64();
        let bare = bare_send(sink.port, &captured).expect("bare client to the sink");
        sink.take();
        let f = captured.len() as f64 / bare.as_secs_f64();
        println!(
            "hand-off to the sink, run {}: bare {f:.0} mails/s, relay {r:.1} mails/s (once {:?})",
            run + 1,
            ran.wall
        );
        sink_floor.push(f);
        sink_relay.push(r);
        sink_ratio.push(r / f);
        sink_rss = sink_rss.max(ran.rss_kb);

        // To Postfix: a second relay and tournament, then the bare client with the mails above.
        let relay = Relay::new("load-handoff-postfix");
        let (t, players) = tournament(&relay, "q", games);
        fernzug(
            &relay,
            &["tournament", "add", t.path.to_str().unwrap()],
            &[],
        );
        smtp_to_postfix(&relay);
        let ran = fernzug(&relay, &["once"], &[]);
        let r = mails as f64 / ran.wall.as_secs_f64();
        settle(&players, mails);
        let bare = bare_send(SMTP_PORT, &captured).expect("bare client to Postfix");
        let f = captured.len() as f64 / bare.as_secs_f64();
        let mut recipients: BTreeMap<String, usize> = BTreeMap::new();
        for m in &captured {
            for t in &m.to {
                *recipients.entry(t.clone()).or_default() += 1;
            }
        }
        settle(&recipients.into_keys().collect::<Vec<_>>(), captured.len());
        println!(
            "hand-off to Postfix, run {}: bare {f:.0} mails/s, relay {r:.1} mails/s (once {:?})",
            run + 1,
            ran.wall
        );
        pf_floor.push(f);
        pf_relay.push(r);
        pf_ratio.push(r / f);
        pf_rss = pf_rss.max(ran.rss_kb);
    }
    let runs = sizes.runs.max(1);
    let what = |server: &str| {
        format!(
            "SMTP hand-off to {server}: {} start mails ({} games), one `once` vs a bare client, one connection, pipelining{}",
            count(mails),
            count(games),
            if runs > 1 {
                format!(", {runs} runs")
            } else {
                String::new()
            }
        )
    };
    let row = |what: String, floor: Vec<f64>, relay: Vec<f64>, ratio: Vec<f64>, rss| {
        let mut row = Row::new(what);
        row.floor = Stats::new(floor).show("mails/s");
        row.relay = Stats::new(relay).show("mails/s");
        row.ratio = Some(Stats::new(ratio).median());
        row.goal = Goal::AtLeast(0.8);
        row.rss = mib(rss);
        progress(&row);
        row
    };
    vec![
        row(
            what("an SMTP sink"),
            sink_floor,
            sink_relay,
            sink_ratio,
            sink_rss,
        ),
        row(what("Postfix"), pf_floor, pf_relay, pf_ratio, pf_rss),
    ]
}

/// Waits until Postfix delivered `total` mails into `boxes` (or nothing moved for 10 s), so that
/// the next measurement does not share the machine with its queue.
fn settle(boxes: &[String], total: usize) {
    wait_total(
        boxes,
        total,
        Duration::from_secs(10),
        Duration::from_secs(120) + Duration::from_millis(50) * total as u32,
    );
}
