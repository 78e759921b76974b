//! End-to-end: the clock (TO §12–§21, Fax 1.4) through the real mail stack, driven with `--now`.

use std::time::Duration;

use crate::common::{Duel, body_text, fetch_all, header, kinds, wait_for};

const WAIT: Duration = Duration::from_secs(20);

/// Anna (White) and Bert (Black), both German; Anna's 1. e4 at 2026-12-01 10:00.
fn after_first_move(name: &str, rules: &str) -> Duel {
    let d = Duel::new(name, rules, ("Anna Adler", None), ("Bert Berger", None));
    let anna = d.anna.clone();
    d.play(&anna, "1. e4", "2026-12-01T10:00:00+01:00");
    wait_for(&d.bert, 2, WAIT);
    d
}

#[test]
fn s16_reminder_on_day_17_not_on_day_15_with_director_in_copy() {
    let d = after_first_move("reminder", "fax");
    d.relay.once("2026-12-16T12:00:00+01:00");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        kinds(&fetch_all(&d.bert)),
        vec!["start", "move"],
        "no reminder on day 15"
    );
    d.relay.once("2026-12-17T09:00:00+01:00");
    let bert = wait_for(&d.bert, 3, WAIT);
    let r = bert.last().unwrap();
    assert_eq!(header(r, "X-Fernzug-Kind").as_deref(), Some("reminder"));
    assert!(header(r, "Cc").unwrap().contains(&d.director));
    assert!(
        body_text(r).contains("1. e4"),
        "the last move repeated: {}",
        body_text(r)
    );
    assert!(body_text(r).contains(&d.game));
    let tl = wait_for(&d.director, 1, WAIT);
    assert_eq!(kinds(&tl), vec!["reminder"]);
    // Each copy carries its own recipient's reply key.
    assert_ne!(header(&tl[0], "Reply-To"), header(r, "Reply-To"));
    assert!(header(&tl[0], "Reply-To").unwrap().contains('+'));
    // Exactly once.
    d.relay.once("2026-12-20T09:00:00+01:00");
    // The silence report 14 days later, to the director.
    d.relay.once("2026-12-31T09:00:00+01:00");
    let tl = wait_for(&d.director, 2, WAIT);
    assert_eq!(kinds(&tl), vec!["reminder", "silence-report"]);
    // The clock warning of TO §17 (5 days left before the control, day 30 under `fax`) came
    // with the same pass.
    assert_eq!(
        kinds(&fetch_all(&d.bert)),
        vec!["start", "move", "reminder", "clock-warning"]
    );
    // The answer to a reminded move goes to the partner with the director in copy.
    d.relay.send(&d.bert, &format!("[{}]", d.game), "1. e4 e5");
    d.relay.once("2027-01-02T09:00:00+01:00");
    let anna = wait_for(&d.anna, 3, WAIT); // start, receipt, move
    let fwd = anna
        .iter()
        .rev()
        .find(|m| header(m, "X-Fernzug-Kind").as_deref() == Some("move"))
        .unwrap();
    assert!(header(fwd, "Cc").unwrap_or_default().contains(&d.director));
}

#[test]
fn s17_first_time_forfeit_under_post_after_day_30() {
    let d = after_first_move("forfeit", "post");
    // Bert announces more than 10 days (TO §13), so the limit of 30 days stands alone.
    d.relay.send(
        &d.bert,
        &format!("[{}]", d.game),
        "Ankündigung: mehr als 10 Tage",
    );
    d.relay.once("2026-12-03T09:00:00+01:00");
    wait_for(&d.anna, 3, WAIT); // start, receipt, announcement
    d.relay.once("2026-12-31T23:00:00+01:00");
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        !kinds(&fetch_all(&d.bert)).contains(&"time-forfeit".to_string()),
        "30 days are allowed"
    );
    d.relay.once("2027-01-01T08:00:00+01:00");
    let all = wait_for(&d.bert, 4, WAIT); // start, move, reminder (day 26), time-forfeit
    let zu = all
        .iter()
        .find(|m| header(m, "X-Fernzug-Kind").as_deref() == Some("time-forfeit"))
        .expect("a time-forfeit notice");
    assert!(header(zu, "Cc").unwrap().contains(&d.director));
    assert!(
        header(zu, "Reply-To").unwrap().contains('+'),
        "a reply key on every game mail"
    );
    assert!(header(zu, "To").unwrap().contains(&d.anna));
    let out = d.relay.run_ok(&[
        "status",
        &d.game,
        "--json",
        "--now",
        "2027-01-01T09:00:00+01:00",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v[0]["clock"]["black"]["time_forfeits"], 1);
    assert_eq!(v[0]["clock"]["black"]["used"], 31);
    assert_eq!(v[0]["clock"]["black"]["allowed"], 30);
    assert_eq!(v[0]["state"], "running");
}

#[test]
fn fax_1_4_answer_at_23_59_costs_nothing_at_24_00_one_day() {
    for (answer, days) in [
        ("2026-12-02T09:59:00+01:00", 0),
        ("2026-12-02T10:00:00+01:00", 1),
    ] {
        let d = after_first_move("fax24", "fax");
        d.relay.send(&d.bert, &format!("[{}]", d.game), "1. e4 e5");
        d.relay.once(answer);
        let anna = wait_for(&d.anna, 3, WAIT);
        let fwd = anna
            .iter()
            .rev()
            .find(|m| header(m, "X-Fernzug-Kind").as_deref() == Some("move"))
            .unwrap();
        let text = body_text(fwd);
        let expected = if days == 1 {
            "Bedenkzeit: 1 Tag".to_string()
        } else {
            format!("Bedenkzeit: {days} Tage")
        };
        assert!(
            text.contains(&expected) && (days != 1 || !text.contains("Bedenkzeit: 1 Tage")),
            "{answer}: {text}"
        );
    }
}
