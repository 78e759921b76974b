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

fn tournaments(st: &crate::core::State, l: &Letter) -> Vec<String> {
    reach(st, l).tournaments.into_iter().collect()
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
    let r = reach(&bare, &through_key);
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
