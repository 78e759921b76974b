//! Every word to the person the rulebook names (issue 49), through the real mail stack: a reply
//! to a decision reaches the director, not the partner, and the player's receipt names the last
//! day of the appeal (TO §29); a director's credit of time lowers the days used (TO §8); an
//! answer to the director's question reaches him whole and plays nothing (TO §23); `Hilfe` is
//! answered to the asker alone.

use std::time::Duration;

use crate::common::{Duel, body_text, envelope_address, fetch_all, header, kinds, next_of};

const WAIT: Duration = Duration::from_secs(20);

/// Anna (White) against Bert, both start mails delivered, Anna's `1. e4` forwarded.
fn duel_after_e4(test: &str) -> Duel {
    let d = Duel::new(test, "post", ("Anna Adler", None), ("Bert Berger", None));
    d.play(&d.anna, "1. e4", "2026-12-01T10:00:00+01:00");
    next_of(&d.bert, "move", 0);
    d
}

/// The reply address of the newest mail of `kind` that `who` got.
fn reply_to_of(who: &str, kind: &str) -> String {
    let got = fetch_all(who);
    let m = got
        .iter()
        .rev()
        .find(|m| header(m, "X-Fernzug-Kind").as_deref() == Some(kind))
        .unwrap_or_else(|| panic!("{who} got no {kind}"));
    envelope_address(&header(m, "Reply-To").expect("Reply-To")).to_string()
}

/// Waits for mail that should not come, then returns `who`'s mails.
fn settled(who: &str) -> Vec<Vec<u8>> {
    std::thread::sleep(Duration::from_millis(400));
    fetch_all(who)
}

/// Waits (at most 20 s) for a mail of `kind` to `who` whose text says `needle`; returns its text
/// on one line. Postfix keeps no order between mails, so counting earlier ones would race.
fn saying(who: &str, kind: &str, needle: &str) -> String {
    let until = std::time::Instant::now() + WAIT;
    loop {
        let found = fetch_all(who)
            .iter()
            .filter(|m| header(m, "X-Fernzug-Kind").as_deref() == Some(kind))
            .map(|m| one_line(&body_text(m)))
            .find(|t| t.contains(needle));
        if let Some(text) = found {
            return text;
        }
        assert!(
            std::time::Instant::now() < until,
            "{who} got no {kind} saying {needle:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn s29_annas_reply_to_her_game_end_reaches_the_director_not_bert() {
    let d = duel_after_e4("appeal-by-reply");
    d.relay
        .send(&d.director, &format!("[{}]", d.game), "Ergebnis: 0-1");
    d.relay.once("2026-12-02T10:00:00+01:00");
    next_of(&d.anna, "game-end", 0);
    let bert_before = settled(&d.bert).len();
    // Anna answers her game end — the obvious way to dispute it.
    let to = reply_to_of(&d.anna, "game-end");
    d.relay.send_to(
        &d.anna,
        &to,
        &format!("Re: [{}] Partieende", d.game),
        "Das Ergebnis ist falsch: Bert hat mir seinen Zug nie geschickt.\n\nAnna Adler",
    );
    d.relay.once("2026-12-05T10:00:00+01:00");
    // TL has her words, whole; Bert has nothing new.
    let tl_text = saying(&d.director, "director", "nie geschickt");
    assert!(
        tl_text.contains("nie geschickt") && tl_text.contains("Anna Adler"),
        "{tl_text}"
    );
    assert_eq!(settled(&d.bert).len(), bert_before, "Bert got nothing");
    // Her receipt names the day it came and the last day of the two weeks (from 2 December).
    let receipt = next_of(&d.anna, "receipt", 1);
    let text = one_line(&body_text(&receipt));
    assert!(text.contains("an den Turnierleiter"), "{text}");
    assert!(
        text.contains("05.12.2026") && text.contains("16.12.2026"),
        "{text}"
    );
}

#[test]
fn s8_frau_adler_werden_4_tage_gutgeschrieben_lowers_her_days_used_by_4() {
    let d = Duel::new(
        "credit",
        "post",
        ("Anna Adler", None),
        ("Bert Berger", None),
    );
    // Anna thinks six days over her first move.
    d.play(&d.anna, "1. e4", "2026-12-07T10:00:00+01:00");
    next_of(&d.bert, "move", 0);
    let used = |d: &Duel| d.status("2026-12-07T11:00:00+01:00")["clock"]["white"]["used"].clone();
    let before = used(&d).as_u64().expect("days used");
    assert!(before >= 4, "{before}");
    d.relay.send(
        &d.director,
        &format!("Re: [{}]", d.game),
        "Frau Adler werden 4 Tage Bedenkzeit gutgeschrieben, da ihr Mailserver ausgefallen war.",
    );
    d.relay.once("2026-12-07T11:00:00+01:00");
    assert_eq!(used(&d).as_u64(), Some(before - 4));
    // Both players are told in words, with the days before and after.
    let notice = one_line(&body_text(&next_of(&d.anna, "director", 0)));
    assert!(notice.contains("gutgeschrieben"), "{notice}");
    assert!(
        notice.contains(&format!("bisher {before} Tage")),
        "{notice}"
    );
}

#[test]
fn s23_an_answer_with_a_move_reaches_the_director_whole_and_the_game_does_not_change() {
    let d = duel_after_e4("question-whole");
    d.relay.send(
        &d.director,
        &format!("[{}] Rückfrage", d.id),
        &format!(
            "Rückfrage an {}: Sie haben seit einer Woche nicht gezogen.\nWollen Sie die Partie fortsetzen?\n\nTom Leiter",
            d.bert
        ),
    );
    d.relay.once("2026-12-08T10:00:00+01:00");
    let question = next_of(&d.bert, "director", 0);
    let q = one_line(&body_text(&question));
    assert!(
        q.contains("nicht gezogen") && q.contains("fortsetzen"),
        "the question whole: {q}"
    );
    let to = envelope_address(&header(&question, "Reply-To").unwrap()).to_string();
    d.relay.send_to(
        &d.bert,
        &to,
        "Re: Rückfrage",
        "Entschuldigung, ich war krank.\nHier mein Zug: 1. e4 e5\nGruß Bert",
    );
    d.relay.once("2026-12-09T10:00:00+01:00");
    let a = saying(&d.director, "director", "krank");
    assert!(
        a.contains("ich war krank") && a.contains("1. e4 e5") && a.contains("Gruß Bert"),
        "whole: {a}"
    );
    let moves = d.status("2026-12-09T10:00:00+01:00")["moves"].clone();
    assert_eq!(moves, serde_json::json!(["e4"]), "the move was not played");
    assert!(!kinds(&settled(&d.anna)).contains(&"move".to_string()));
}

#[test]
fn hilfe_is_answered_by_the_relay_and_reaches_nobody_else() {
    let d = duel_after_e4("help");
    let bert_before = settled(&d.bert).len();
    let tl_before = settled(&d.director).len();
    d.relay.send(&d.anna, &format!("Re: [{}]", d.game), "Hilfe");
    d.relay.once("2026-12-02T10:00:00+01:00");
    let help = next_of(&d.anna, "help", 0);
    let text = one_line(&body_text(&help));
    assert!(
        text.contains("Remis") && text.contains("Urlaub") && text.contains("Einspruch"),
        "{text}"
    );
    assert_eq!(settled(&d.bert).len(), bert_before);
    assert_eq!(settled(&d.director).len(), tl_before);
    assert_eq!(
        d.status("2026-12-02T10:00:00+01:00")["moves"],
        serde_json::json!(["e4"])
    );
}
