//! [`reach`]: every way a letter names a game reaches that game's tournament, and nothing else
//! (a relay holding games lazily brings in exactly this; `tests/pure/letter_fixtures.rs` checks
//! for every fixture letter that the core then decides the same as with every game at hand).

use super::reach;
use crate::core::testkit::{ANNA, BERT, CARL, DORA, TL, letter, register, tournament};
use crate::game_ref::GameRef;
use crate::letter::dsn::{Dsn, Failed};
use crate::letter::{Content, Letter};
use crate::rules::RuleSet;

const OTHER_TL: &str = "ute.leiter@fernschach.test";
const STRANGER: &str = "somebody@example.org";

/// T-A: Anna and Bert, directed by Tom; T-B: Carl and Dora, directed by Ute.
fn two_tournaments() -> crate::core::State {
    let mut st = crate::core::State::default();
    let a = tournament(
        "T-A",
        "A",
        RuleSet::Fax,
        &[("Anna", ANNA, None), ("Bert", BERT, None)],
        &[(0, 1)],
    );
    let mut b = tournament(
        "T-B",
        "B",
        RuleSet::Fax,
        &[("Carl", CARL, None), ("Dora", DORA, None)],
        &[(0, 1)],
    );
    b.director.email = OTHER_TL.into();
    register(&mut st, &a);
    register(&mut st, &b);
    st
}

fn b1() -> GameRef {
    GameRef::new("T-B", 1)
}

fn now() -> chrono::DateTime<chrono::Utc> {
    use chrono::TimeZone;
    chrono::Utc.with_ymd_and_hms(2026, 12, 5, 10, 0, 0).unwrap()
}

fn tournaments(st: &crate::core::State, l: &Letter) -> Vec<String> {
    reach(st, l, now()).tournaments.into_iter().collect()
}

#[test]
fn every_way_of_naming_a_game_reaches_its_tournament_only() {
    let st = two_tournaments();
    let key_b = st
        .keys
        .iter()
        .find(|(_, b)| b.game == b1())
        .map(|(k, _)| k.clone())
        .expect("a key of T-B/1");
    let b = vec!["T-B".to_string()];
    // The sender plays in it, or directs it (a leave or a Status is about all his games).
    assert_eq!(tournaments(&st, &letter(CARL, None, Content::default())), b);
    assert_eq!(
        tournaments(&st, &letter(OTHER_TL, None, Content::default())),
        b
    );
    assert_eq!(
        tournaments(&st, &letter(&CARL.to_uppercase(), None, Content::default())),
        b,
        "addresses compare without case"
    );
    // The subject's [ID/N], also from a stranger.
    assert_eq!(
        tournaments(&st, &letter(STRANGER, Some(b1()), Content::default())),
        b
    );
    // A reply key: its tournament when the key is at hand, the key itself in any case.
    let mut through_key = letter(STRANGER, None, Content::default());
    through_key.reply_keys = vec![key_b.clone()];
    assert_eq!(tournaments(&st, &through_key), b);
    let mut bare = st.clone();
    bare.keys = Default::default();
    let r = reach(&bare, &through_key, now());
    assert!(r.tournaments.is_empty(), "{r:?}");
    assert_eq!(r.keys.into_iter().collect::<Vec<_>>(), vec![key_b]);
    // A delivery-status report: the game of the returned original, the failed recipients'.
    let mut dsn = letter("mailer-daemon@example.org", None, Content::default());
    dsn.dsn = Some(Dsn {
        game: Some(b1()),
        ..Dsn::default()
    });
    assert_eq!(tournaments(&st, &dsn), b);
    dsn.dsn = Some(Dsn {
        failed: vec![Failed {
            recipient: DORA.into(),
            error: "5.1.1".into(),
        }],
        ..Dsn::default()
    });
    assert_eq!(tournaments(&st, &dsn), b);
    // Nothing of the relay named: nothing reached.
    assert!(tournaments(&st, &letter(STRANGER, None, Content::default())).is_empty());
    // Tom directs T-A only.
    assert_eq!(
        tournaments(&st, &letter(TL, None, Content::default())),
        vec!["T-A".to_string()]
    );
}

#[test]
fn a_players_letter_about_one_game_reaches_that_game_alone() {
    let st = two_tournaments();
    let key_of = |email: &str| {
        st.keys
            .iter()
            .find(|(_, b)| b.game == b1() && b.email == email)
            .map(|(k, _)| k.clone())
            .expect("a key")
    };
    let through = |email: &str, content: Content| {
        let mut l = letter(email, None, content);
        l.reply_keys = vec![key_of(email)];
        l
    };
    // Carl's move (or words, a draw…) through his own key: T-B/1 alone, no tournament whole.
    let r = reach(&st, &through(CARL, Content::default()), now());
    assert!(r.tournaments.is_empty(), "{r:?}");
    assert_eq!(r.games.into_iter().collect::<Vec<_>>(), vec![b1()]);
    // Also with the game named in the subject.
    let mut named = through(CARL, Content::default());
    named.game_ref = Some(b1());
    assert_eq!(reach(&st, &named, now()).games.len(), 1);
    // Whole tournaments: a letter that asks for more than the game…
    let leave = Content {
        status_request: true,
        ..Content::default()
    };
    let r = reach(&st, &through(CARL, leave), now());
    assert!(r.games.is_empty() && r.tournaments.contains("T-B"), "{r:?}");
    // …through someone else's key, or naming another game…
    let mut foreign = through(CARL, Content::default());
    foreign.from = DORA.into();
    assert!(reach(&st, &foreign, now()).games.is_empty());
    let mut other = through(CARL, Content::default());
    other.game_ref = Some(GameRef::new("T-A", 1));
    assert!(reach(&st, &other, now()).games.is_empty());
    // …or from a player whose leave a move could end (TO §24: in all his games).
    let mut on_leave = st.clone();
    let t = on_leave.tournaments.get_mut("T-B").unwrap();
    t.players[0].leaves.push(crate::core::clock::Rest {
        from: now().date_naive(),
        to: now().date_naive() + chrono::Duration::days(3),
    });
    let r = reach(&on_leave, &through(CARL, Content::default()), now());
    assert!(r.games.is_empty() && r.tournaments.contains("T-B"), "{r:?}");
    // A leave over long ago does not count.
    let t = on_leave.tournaments.get_mut("T-B").unwrap();
    t.players[0].leaves[0] = crate::core::clock::Rest {
        from: now().date_naive() - chrono::Duration::days(30),
        to: now().date_naive() - chrono::Duration::days(20),
    };
    assert_eq!(
        reach(&on_leave, &through(CARL, Content::default()), now())
            .games
            .len(),
        1
    );
}
