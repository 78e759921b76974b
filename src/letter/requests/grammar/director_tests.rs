use super::super::{Reading, read_paragraph};

#[test]
fn a_players_chat_is_no_directors_command() {
    for t in [
        "Meine Partie gegen Müller wurde 1-0 gewertet.",
        "Die Partie wird nach meinem Urlaub sicher fortgesetzt, da bin ich mir ganz sicher.",
        "Ich hoffe, die Partie wird fortgesetzt.",
    ] {
        assert!(
            !read_paragraph(t)
                .iter()
                .any(|r| matches!(r.reading, Reading::Commands(_))),
            "{t}"
        );
    }
    assert!(matches!(
        read_paragraph("Die Partie wird mit 1-0 für Weiß gewertet.")[0].reading,
        Reading::Commands(_)
    ));
}
