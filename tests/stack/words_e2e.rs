//! End-to-end: players' own words (TO §2, §24) and a player's other address, through the real
//! mail stack, driven with `fernzug once --now`.

use std::time::Duration;

use crate::common::{Relay, body_text, fetch_all, header, kinds, next_of, unique_addr};

#[test]
fn players_sentences_and_a_second_address_through_real_mail() {
    let relay = Relay::new("words");
    let anna = unique_addr("anna");
    let bert = unique_addr("bert");
    let phone = unique_addr("annaphone");
    let t = relay.tournament(
        &[("Anna Adler", &anna, None), ("Bert Berger", &bert, None)],
        "fax",
        "2026-12-01",
    );
    // The tournament file names Anna's phone as an address she also writes from.
    let text = std::fs::read_to_string(&t.path).unwrap();
    let text = text.replace(
        &format!("email = \"{anna}\"\n"),
        &format!("email = \"{anna}\"\nalso = [\"{phone}\"]\n"),
    );
    std::fs::write(&t.path, text).unwrap();
    relay.add(&t);
    let subject = format!("Re: [{}] Adler – Berger", t.game(1));

    // From her phone: the move counts as hers, her receipt goes to her registered address.
    relay.send(&phone, &subject, "1. e4\n\nGesendet von meinem Smartphone");
    relay.once("2026-12-01T10:00:00+01:00");
    next_of(&bert, "move", 0);
    next_of(&anna, "receipt", 0);
    std::thread::sleep(Duration::from_millis(300));
    assert!(fetch_all(&phone).is_empty(), "nothing goes to the phone");

    // Bert's move and a draw offer in a question of his own.
    relay.send(
        &bert,
        &subject,
        "Hallo Anna,\n\n1. e4 e5\n\nWollen wir uns auf Remis einigen? Die Stellung ist ja\nsymmetrisch.\n\nGruß Bert",
    );
    relay.once("2026-12-02T10:00:00+01:00");
    let forward = next_of(&anna, "move", 0);
    assert!(
        body_text(&forward).contains("bietet Remis an"),
        "{}",
        body_text(&forward)
    );

    // A leave without its last day: a query about the leave, quoting her sentence.
    relay.send(&anna, "Urlaub", "Ich bin ab dem 20.12.2026 im Urlaub.");
    relay.once("2026-12-02T11:00:00+01:00");
    let query = body_text(&next_of(&anna, "query", 0));
    assert!(
        query.contains("„Ich bin ab dem 20.12.2026 im Urlaub.“"),
        "{query}"
    );
    assert!(query.contains("der letzte Urlaubstag fehlt"), "{query}");

    // The same leave in a whole sentence is granted, and Bert is told.
    relay.send(
        &anna,
        "Urlaub",
        "Lieber Bert, ich nehme Urlaub vom 20.12.2026 bis 03.01.2027. Frohe Feiertage!",
    );
    relay.once("2026-12-02T12:00:00+01:00");
    let leave = body_text(&next_of(&bert, "leave", 0));
    assert!(leave.contains("20.12.2026"), "{leave}");
    assert!(leave.contains("03.01.2027"), "{leave}");
}

/// The HTML part of `raw`, decoded (empty without one).
/// The HTML part as a client shows its characters: the numeric character references the relay
/// writes for everything beyond ASCII (`&#252;`) read back.
fn html_of(raw: &[u8]) -> String {
    let html = mail_parser::MessageParser::default()
        .parse(raw)
        .and_then(|m| m.body_html(0).map(|t| t.into_owned()))
        .unwrap_or_default();
    let mut out = String::with_capacity(html.len());
    let mut rest = html.as_str();
    while let Some(at) = rest.find("&#") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        match after.split_once(';').and_then(|(n, tail)| {
            n.parse::<u32>()
                .ok()
                .and_then(char::from_u32)
                .map(|c| (c, tail))
        }) {
            Some((c, tail)) => {
                out.push(c);
                rest = tail;
            }
            None => {
                out.push_str("&#");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[test]
fn s30_players_words_reach_the_partner_and_moves_only_stops_them_through_real_mail() {
    let relay = Relay::new("correspondence");
    let anna = unique_addr("anna");
    let bert = unique_addr("bert");
    let t = relay.tournament(
        &[("Anna Adler", &anna, None), ("Bert Berger", &bert, None)],
        "fax",
        "2026-12-01",
    );
    relay.add(&t);
    relay.once("2026-12-01T09:00:00+01:00");
    let start = body_text(&next_of(&anna, "start", 0));
    let subject = format!("Re: [{}] Adler – Berger", t.game(1));

    // Anna answers her start mail as a mail program does: her move, her words, and below them
    // the quoted original.
    let quoted: String = start.lines().map(|l| format!("> {l}\n")).collect();
    relay.send(
        &anna,
        &subject,
        &format!(
            "1. e4\n\nLiebe Grüße aus Köln — und frohe Weihnachten!\n\nAm 30.11.2026 um 12:00 schrieb Relais <{}>:\n{quoted}",
            relay.address
        ),
    );
    relay.once("2026-12-01T10:00:00+01:00");
    let to_bert = next_of(&bert, "move", 0);
    let text = body_text(&to_bert).replace("\r\n", "\n");
    assert!(
        text.contains("Anna Adler schreibt:\n\n  Liebe Grüße aus Köln — und frohe Weihnachten!\n"),
        "{text}"
    );
    assert!(
        !text.contains("> ") && !text.contains("schrieb Relais"),
        "{text}"
    );
    let html = html_of(&to_bert);
    assert!(
        html.contains("Liebe Grüße aus Köln — und frohe Weihnachten!"),
        "{html}"
    );
    let receipt = body_text(&next_of(&anna, "receipt", 0));
    assert!(
        receipt.contains("Mit Ihrem Zug ging an Bert Berger:"),
        "{receipt}"
    );

    // Words alone: a message to Anna; Bert, on move, is told his move is still awaited.
    relay.send(
        &bert,
        &subject,
        "Danke, Anna! Ihnen auch frohe Feiertage <3 & Grüße.",
    );
    relay.once("2026-12-02T10:00:00+01:00");
    let message = next_of(&anna, "message", 0);
    assert_eq!(
        header(&message, "X-Fernzug-Game").as_deref(),
        Some(t.game(1).as_str())
    );
    let text = body_text(&message);
    assert!(
        text.contains("Danke, Anna! Ihnen auch frohe Feiertage <3 & Grüße."),
        "{text}"
    );
    let receipt = body_text(&next_of(&bert, "receipt", 0));
    assert!(
        receipt.contains("Ihr Zug wird weiterhin erwartet"),
        "{receipt}"
    );

    // TO §30: the director restricts the game to moves; both players are told.
    relay.send(
        &t.director,
        "Anweisung",
        &format!("Nur Züge: {}", t.game(1)),
    );
    relay.once("2026-12-02T11:00:00+01:00");
    next_of(&anna, "director", 0);
    next_of(&bert, "director", 0);
    // Bert's words beside his move stay with the relay; his words alone are queried.
    relay.send(&bert, &subject, "1. e4 e5\n\nNoch ein Gruß an Anna.");
    relay.once("2026-12-03T10:00:00+01:00");
    let text = body_text(&next_of(&anna, "move", 0));
    assert!(!text.contains("Noch ein Gruß"), "{text}");
    relay.send(
        &bert,
        &subject,
        "Schade, dass wir nicht mehr plaudern dürfen.",
    );
    relay.once("2026-12-03T11:00:00+01:00");
    let query = body_text(&next_of(&bert, "query", 0));
    assert!(query.contains("auf Züge beschränkt"), "{query}");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        kinds(&fetch_all(&anna))
            .iter()
            .filter(|k| k.as_str() == "message")
            .count(),
        1,
        "no second message to Anna"
    );
}

#[test]
fn s24_a_planned_leave_is_withdrawn_through_real_mail() {
    let relay = Relay::new("withdraw");
    let anna = unique_addr("anna");
    let bert = unique_addr("bert");
    let t = relay.tournament(
        &[("Anna Adler", &anna, None), ("Bert Berger", &bert, None)],
        "fax",
        "2026-12-01",
    );
    relay.add(&t);
    relay.send(
        &anna,
        "Urlaub",
        "Ich nehme Urlaub vom 20.12.2026 bis 03.01.2027.",
    );
    relay.once("2026-12-01T10:00:00+01:00");
    next_of(&bert, "leave", 0);
    next_of(&anna, "receipt", 0);
    // Before it begins, she withdraws it in a sentence of her own.
    relay.send(
        &anna,
        "Re: Urlaub",
        "Lieber Herr Leiter, wir bleiben doch zu Hause: Ich ziehe meinen Urlaub zurück.",
    );
    relay.once("2026-12-05T10:00:00+01:00");
    let notice = next_of(&bert, "leave", 1);
    assert!(
        header(&notice, "Cc").is_some_and(|cc| cc.contains(&t.director)),
        "TL in copy of the partner's notice"
    );
    let text = body_text(&notice);
    assert!(text.contains("zurückgezogen"), "{text}");
    // TL: his own notice and his copy of the partner's, for the leave and for its withdrawal.
    next_of(&t.director, "leave", 3);
    let receipt = body_text(&next_of(&anna, "receipt", 1));
    assert!(receipt.contains("zurückgezogen"), "{receipt}");
    assert!(receipt.contains("0 von 42 Tagen verplant"), "{receipt}");
}
