//! One rule per request, over the folded words of a sentence ([`super::tokens`]).
//!
//! Each rule first looks for the words that *carry* its request (the lexicon beside it: verbs in
//! their forms, nouns and compounds, number words); without one it says nothing. With one it
//! always gives a reading ([`Reading::Acts`], [`Reading::Asks`] or [`Reading::Declines`]), asking
//! in this order: is the word used in another sense; is it negated in its clause; is it about the
//! partner, another game or the past; is the sentence a question or hedged; is the request
//! complete. What is not certain is asked, never guessed (TO §2, §8).

use super::reading::{Reading, Request, Why};
use super::tokens::{Sentence, Tok, days_at, is_negation, negated};
use crate::letter::types::{Ask, DateSpan, DirectorCommand, Missing, RequestKind, StatedDate};

/// Every reading of one sentence. `before` is the sentence before it (`Agreed. Draw.`), `after`
/// the (up to two) sentences after it (a leave's dates may follow there:
/// `Urlaubsmeldung. 10.12.2026 – 23.12.2026`; `Remis? Nein danke!`).
pub fn read_sentence(s: &Sentence, before: Option<&Sentence>, after: &[Sentence]) -> Vec<Reading> {
    // The director's desk in words (TO §11, §23, §26, §29, §30): acted on, asked back with the
    // exact form, or declined.
    if let Some(r) = desk(s, after) {
        return vec![r];
    }
    // A director's command in words (TO §21–§26, §30): the sentence is his, not a player's.
    if let Some(cmd) = director(s) {
        return vec![Reading::Commands(cmd)];
    }
    // TO §24: a planned leave withdrawn (`Urlaub zurückgezogen`, `I cancel my leave`) is the
    // sentence's one request: not a leave asked for, not a move taken back (TO §4).
    if let Some(r) = withdraw_leave(s) {
        return vec![r];
    }
    let mut out = Vec::new();
    // TO §4: what a take-back names (`ich ziehe mein Remisangebot zurück`) is not made anew.
    let took_back = take_back(s);
    let taken = matches!(took_back, Some(Reading::Acts(_) | Reading::Asks(_)));
    out.extend(took_back);
    if !taken {
        let claim = claim(s);
        let claimed = claim.is_some();
        out.extend(claim);
        if !claimed {
            let draw = draw(s, before, after);
            if draw.is_none() {
                out.extend(bare_accept(s));
            }
            out.extend(draw);
        }
        out.extend(resign(s));
    }
    let announced = announce(s);
    let leave = match (&announced, leave(s, after)) {
        // `mehr als 10 Tage (Urlaub ohne Bücher)`: a leave without dates explains the §13
        // announcement beside it, it asks for nothing.
        (
            Some(Reading::Acts(_)),
            Some(Reading::Asks(Ask {
                missing: Missing::Dates,
                ..
            })),
        ) => Some(declines(RequestKind::Leave, Why::Describes)),
        (_, leave) => leave,
    };
    out.extend(announced);
    out.extend(status(s));
    out.extend(leave);
    out
}

fn ask(kind: RequestKind, s: &Sentence, missing: Missing) -> Reading {
    Reading::Asks(Ask {
        kind,
        sentence: super::tokens::sentence_text(s),
        missing,
    })
}

fn declines(kind: RequestKind, why: Why) -> Reading {
    Reading::Declines { kind, why }
}

// ---------------------------------------------------------------------------------------
// The words that turn a request around (negation: `super::tokens`).

/// Declining an offer: it is no acceptance and no offer.
const REJECTIONS: &[&str] = &[
    "ablehnen",
    "lehne",
    "lehnen",
    "abgelehnt",
    "abzulehnen",
    "decline",
    "declined",
    "declining",
    "reject",
    "rejected",
    "refuse",
    "refused",
    "verzichte",
];

const FIRST_PERSON: &[&str] = &[
    "ich", "i", "mein", "meine", "meinen", "meinem", "meiner", "mir", "mich", "my", "me", "i'm",
    "i'll", "i'd", "i've", "ive", "wir", "we", "uns", "us", "let's", "lets", "unsere", "our",
];
const SECOND_PERSON: &[&str] = &[
    "du",
    "dich",
    "dir",
    "dein",
    "deine",
    "deinen",
    "deinem",
    "deiner",
    "you",
    "your",
    "you're",
    "you've",
    "youre",
    "gibst",
    "nimmst",
    "bist",
    "hast",
    "willst",
    "moechtest",
    "machst",
];
/// Someone else's act (`er hat aufgegeben`, `mein Sohn hat …`).
const THIRD_PERSON: &[&str] = &[
    "er",
    "he",
    "she",
    "they",
    "gegner",
    "opponent",
    "gegenspieler",
    "hat",
    "has",
    "sohn",
    "tochter",
    "frau",
    "mann",
    "freund",
    "son",
    "daughter",
    "wife",
    "husband",
    "friend",
];

/// Whether the sentence speaks to the partner: `du`, `you`, or a capitalised `Sie`/`Ihnen` after
/// the first word (the formal address).
fn second_person(s: &Sentence) -> bool {
    // `Sie haben wohl …?`: a question opening with `Sie` speaks to the partner.
    let opens_with_sie = s.question && s.words().next().is_some_and(|(_, w)| w == "sie");
    opens_with_sie
        || s.has(SECOND_PERSON)
        || s.toks.iter().skip(1).any(|t| {
            matches!(t, Tok::Word { folded, upper: true } if folded == "sie" || folded == "ihnen")
        })
}

fn first_person(s: &Sentence) -> bool {
    s.has(FIRST_PERSON)
}

/// The past (`war`, `hatte`, `letztes Jahr`, `yesterday`).
const PAST: &[&str] = &[
    "war",
    "waren",
    "warst",
    "hatte",
    "hatten",
    "were",
    "had",
    "gestern",
    "yesterday",
    "damals",
    "vergangenen",
    "vergangene",
    "letztes",
    "letzten",
    "last",
    "ago",
    "frueher",
    "neulich",
    "gehabt",
];
/// Talk of another game or another event.
const OTHER_GAME: &[&str] = &[
    "anderen",
    "andere",
    "other",
    "turnier",
    "tournament",
    "olympiade",
    "gegen",
    "against",
    "zwischen",
    "between",
    "bundesliga",
    "liga",
    "vereinsmeisterschaft",
    "jugendturnier",
    "club",
    "verein",
    "gruppe",
    "weltmeisterschaft",
];

/// Uncertainty: the writer thinks about it, does not declare it.
const HEDGES: &[&str] = &[
    "vielleicht",
    "eventuell",
    "evtl",
    "moeglicherweise",
    "wahrscheinlich",
    "voraussichtlich",
    "wohl",
    "ueberlege",
    "ueberlegen",
    "ueberlegt",
    "sollte",
    "sollten",
    "muesste",
    "koennte",
    "koennten",
    "bald",
    "spaeter",
    "demnaechst",
    "irgendwann",
    "maybe",
    "perhaps",
    "probably",
    "possibly",
    "might",
    "should",
    "considering",
    "consider",
    "thinking",
    "soon",
    "later",
    "wenn",
    "falls",
    "sofern",
    "if",
    "unless",
    "sonst",
    "otherwise",
    "waere",
    "would",
    "could",
    "eher",
    "denke",
    "glaube",
    "think",
    "guess",
    "seems",
    "scheint",
    "fair",
    "gerecht",
];

/// English `was` (German `was` is "what"): `I was on leave`, `it was drawn`.
fn english_was(s: &Sentence) -> bool {
    [
        "i", "it", "he", "she", "that", "this", "game", "position", "there",
    ]
    .iter()
    .any(|w| bigram(s, w, "was"))
}

fn hedged(s: &Sentence) -> bool {
    s.has(HEDGES)
}

/// A wish or greeting (`schöne Feiertage`, `enjoy your holiday`, `danke für die Urlaubsgrüße`).
const WISHES: &[&str] = &[
    "wuensche",
    "wuenschen",
    "schoene",
    "schoenen",
    "schoenes",
    "schoener",
    "erholsame",
    "erholsamen",
    "frohe",
    "frohes",
    "enjoy",
    "happy",
    "merry",
    "nice",
    "wish",
    "geniesse",
    "geniess",
    "danke",
    "thanks",
    "thank",
    "party",
    "feier",
];

/// The player plays on (`ich spiele weiter`, `I'll play on`): no draw, no resignation.
fn plays_on(s: &Sentence) -> bool {
    s.has(&["weiter", "weiterspielen", "weiterkaempfen"])
        && s.has(&[
            "spiele",
            "spielen",
            "kaempfe",
            "kaempfen",
            "geht",
            "weiterspielen",
        ])
        || s.has(&["play", "playing", "keep"]) && s.has(&["on", "playing"])
}

/// A separable verb's particle closes its clause (`ich gebe … auf`, `ich nehme … an`): whether
/// `particle` is the last word of a clause of the sentence, or is followed only by `und`,
/// `hiermit`, `jetzt`, `bzw.`.
fn particle_at_end(s: &Sentence, particle: &str) -> bool {
    s.toks.iter().enumerate().any(|(i, t)| {
        t.word() == Some(particle) && {
            let (_, end) = s.clause_of(i);
            match s.toks[i + 1..end].iter().find_map(Tok::word) {
                None => true,
                Some(next) => matches!(
                    next,
                    "und" | "and" | "hiermit" | "jetzt" | "nun" | "bitte" | "bzw" | "oder" | "or"
                ),
            }
        }
    })
}

/// Whether word `a` is followed by word `b` (`na gut`, `call it`).
fn bigram(s: &Sentence, a: &str, b: &str) -> bool {
    let mut words = s.words().map(|(_, w)| w);
    let Some(mut before) = words.next() else {
        return false;
    };
    words.any(|w| {
        let pair = before == a && w == b;
        before = w;
        pair
    })
}

// ---------------------------------------------------------------------------------------
// The director's commands in words (TO §21, §22, §24–§26, §30, §31).

/// `1-0`, `0-1`, `1/2-1/2`, `remis`, `draw` in a sentence, as the reader writes results.
fn result_in(s: &Sentence) -> Option<String> {
    for w in s.toks.windows(3) {
        match w {
            [Tok::Num(1), Tok::Dash | Tok::Colon, Tok::Num(0)] => return Some("1-0".into()),
            [Tok::Num(0), Tok::Dash | Tok::Colon, Tok::Num(1)] => return Some("0-1".into()),
            _ => {}
        }
    }
    let draw = s.has(&["remis", "unentschieden", "draw", "drawn"])
        || s.toks
            .windows(3)
            .any(|w| matches!(w, [Tok::Num(1), Tok::Dash, Tok::Num(2)]));
    draw.then(|| "1/2-1/2".into())
}

fn director(s: &Sentence) -> Option<DirectorCommand> {
    if s.question || s.has(&["hoffe", "hope", "bitte", "please"]) && !s.has(&["resume"]) {
        // `Please resume the game.` is the one polite command read below.
        if !(s.has(&["resume"]) && s.has(&["game", "partie"])) {
            return None;
        }
    }
    // TO §8, §30, Fax 2.2: `Frau Adler werden 4 Tage Bedenkzeit gutgeschrieben, da …` — its own
    // rule (`super::time`), which asks negation and report of its verb's clause alone: a reason
    // beside it may say `nicht` or `verloren`.
    if let Some(cmd) = super::time::adjust(s) {
        return Some(cmd);
    }
    let negated = s.words().any(|(_, w)| is_negation(w));
    // A report (`die Partie wurde 1-0 gewertet`, `ich habe gewonnen`) or a wish commands nothing:
    // a player's chat must not turn his mail into a director's.
    let reported = s.has(&[
        "wurde",
        "wurden",
        "gewonnen",
        "verloren",
        "won",
        "lost",
        "hoffentlich",
        "hopefully",
        "wenn",
        "if",
        "falls",
    ]);
    if negated || reported {
        return None;
    }
    let emails = s.emails();
    let dates = span_of(s).0;
    // TO §22: `Ich bestätige die zweite Zeitüberschreitung`, `Second time forfeit confirmed.`
    let confirms = s.has(&[
        "bestaetige",
        "bestaetigt",
        "bestaetigen",
        "confirm",
        "confirmed",
    ]);
    let forfeit = s
        .find_by(|w| w.starts_with("zeitueberschreitung") || w == "zue" || w == "forfeit")
        .is_some();
    if confirms && forfeit {
        return Some(DirectorCommand::ConfirmForfeit);
    }
    // TO §30: `Hiermit ermahne ich anna@x.de wegen …` (`super::warn`).
    if let Some(cmd) = super::warn::warning(s) {
        return Some(cmd);
    }
    // TO §26: `Die Partie FAX-2026-3/7 wird annulliert.`, `The game is annulled.`
    if s.find_by(|w| w.starts_with("annull") || w == "annulled")
        .is_some()
        && s.has(&["partie", "game", "ergebnis", "result", "wertung"])
    {
        return Some(DirectorCommand::SetResult("annulled".into()));
    }
    // TO §26, §31: `Die Partie wird mit 1-0 für Weiß gewertet.`, `Ich werte die Partie als Remis.`
    if s.has(&[
        "gewertet", "werte", "werten", "scored", "score", "awarded", "award",
    ]) && let Some(r) = result_in(s)
    {
        return Some(DirectorCommand::SetResult(r));
    }
    // TO §24: `Ich gewähre anna@x.de Sonderurlaub vom 1.2. bis 14.2.2027.`
    if let ([player], [from, to, ..]) = (emails.as_slice(), dates.as_slice()) {
        let span = DateSpan {
            from: *from,
            to: *to,
        };
        if s.find_by(|w| w.starts_with("sonderurlaub")).is_some() || bigram(s, "special", "leave") {
            return Some(DirectorCommand::SpecialLeave {
                span,
                player: player.to_string(),
            });
        }
        // TO §25: `Den verspätet gemeldeten Urlaub von bert@x.de … erkenne ich an.`
        let late = s.has(&[
            "verspaetet",
            "nachtraeglich",
            "late",
            "verspaetete",
            "verspaeteten",
        ]);
        let accepts = s.has(&["erkenne", "anerkannt", "accept", "accepted", "akzeptiere"]);
        if late && accepts {
            return Some(DirectorCommand::AcceptLateLeave {
                span,
                player: player.to_string(),
            });
        }
    }
    // `Die Partie wird fortgesetzt.`, `Please resume the game.`: short, as a command is.
    if ((s.has(&["fortgesetzt", "fortsetzen"]) && s.has(&["partie", "wird"]))
        || (s.has(&["resume", "resumed"]) && s.has(&["game", "partie"])))
        && s.word_count() <= 6
    {
        return Some(DirectorCommand::Resume);
    }
    None
}

// ---------------------------------------------------------------------------------------
// The director's desk in words (TO §11, §23, §26, §29, §30).

/// A game as written in a sentence: `FAX-2026-3/7`.
static GAME_IN_TEXT: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"(?:^|[\s(\[„\x22'])([A-Za-z0-9][A-Za-z0-9._-]*/\d+)\b")
        .expect("valid regex")
});
/// A tournament as written in a sentence: an id with a dash and a digit (`FAX-2026-3`), not a
/// game.
static TOURNAMENT_IN_TEXT: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"(?:^|[\s(\[„\x22'])([A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*-\d[A-Za-z0-9]*)(?:$|[\s).,;:!?\]“\x22'])")
        .expect("valid regex")
});

fn game_in(s: &Sentence) -> Option<String> {
    GAME_IN_TEXT
        .captures(&s.text)
        .and_then(|c| c.get(1))
        .map(|m| m.as_str().to_string())
}

fn tournament_in(s: &Sentence) -> Option<String> {
    TOURNAMENT_IN_TEXT
        .captures(&s.text)
        .and_then(|c| c.get(1))
        .map(|m| m.as_str().to_string())
}

/// Asked back: the kind of request and what it lacks.
fn ask_back(s: &Sentence, kind: RequestKind, missing: Missing) -> Reading {
    Reading::Asks(Ask {
        kind,
        sentence: s.text.trim().to_string(),
        missing,
    })
}

/// The director's desk in a sentence. Each form needs its own words and an object a player's
/// chat does not name: a game (`FAX-2026-3/7`) or a player's address. A negated one is
/// declined; one without its object or its choice is asked back with the exact form. A
/// withdrawal's scoring may stand in the next sentence (`… ist zurückgetreten. Ihre Partien werden
/// als verloren gewertet.`).
fn desk(s: &Sentence, after: &[Sentence]) -> Option<Reading> {
    let negated = s.words().any(|(_, w)| is_negation(w));
    let emails = s.emails();
    // TO §11, §29: `Bitte schicken Sie mir die Korrespondenz der Partie FAX-2026-3/7.`
    let wants = s.has(&[
        "schicken",
        "schicke",
        "schickt",
        "senden",
        "sende",
        "zusenden",
        "uebersenden",
        "send",
        "mail",
        "brauche",
        "benoetige",
        "erbitte",
        "bitte",
        "please",
        "moechte",
        "haette",
        "would",
        "need",
        "request",
        "anfordern",
        "fordere",
        "want",
    ]) || s.question;
    let correspondence = s
        .find_by(|w| {
            w.starts_with("korrespondenz")
                || w == "correspondence"
                || w.starts_with("schriftwechsel")
                || w == "mailverkehr"
        })
        .is_some();
    let pgn = s.has(&["pgn"]);
    let verify = s
        .find_by(|w| {
            w.starts_with("pruef")
                || w.starts_with("ueberpruef")
                || w == "verify"
                || w == "verification"
                || w == "nachrechnen"
        })
        .is_some()
        && s.find_by(|w| {
            w.starts_with("protokoll")
                || w == "record"
                || w.starts_with("siegel")
                || w.starts_with("pruefsumme")
                || w == "seal"
                || w == "chain"
        })
        .is_some();
    if (correspondence || pgn || verify) && wants {
        if negated {
            return Some(declines(RequestKind::Records, Why::Negated));
        }
        let game = game_in(s);
        let read = match (correspondence, verify, game) {
            (true, _, Some(game)) => Reading::Commands(DirectorCommand::Correspondence { game }),
            (false, true, Some(game)) => Reading::Commands(DirectorCommand::Verify { game }),
            (false, false, Some(game)) => Reading::Commands(DirectorCommand::Pgn { target: game }),
            (false, false, None) => match tournament_in(s) {
                Some(target) => Reading::Commands(DirectorCommand::Pgn { target }),
                None => ask_back(s, RequestKind::Records, Missing::Game),
            },
            _ => ask_back(s, RequestKind::Records, Missing::Game),
        };
        return Some(read);
    }
    // TO §26: `anna@x.de ist vom Turnier zurückgetreten; ihre Partien werten Sie als verloren.`
    let withdraws = s
        .find_by(|w| {
            w.starts_with("zurueckgetreten")
                || w.starts_with("ruecktritt")
                || w == "zurueck" && s.has(&["tritt", "treten", "trat"])
                || w == "withdrawn"
                || w == "withdraws"
                || w == "withdrew"
                || w.starts_with("withdrawal")
        })
        .is_some();
    if withdraws && let [player] = emails.as_slice() {
        let lost_in = |x: &Sentence| x.has(&["verloren", "lost", "kampflos", "forfeited"]);
        let annulled_in = |x: &Sentence| {
            x.find_by(|w| {
                w.starts_with("annull")
                    || w.starts_with("gestrichen")
                    || w.starts_with("streichen")
                    || w == "cancelled"
                    || w == "canceled"
                    || w == "void"
            })
            .is_some()
        };
        let next = after.first().filter(|n| n.emails().is_empty());
        let (mut lost, mut annulled) = (lost_in(s), annulled_in(s));
        if !lost
            && !annulled
            && let Some(n) = next
        {
            (lost, annulled) = (lost_in(n), annulled_in(n));
        }
        return Some(match (lost, annulled) {
            _ if negated && !lost && !annulled => declines(RequestKind::Withdrawal, Why::Negated),
            (true, false) => Reading::Commands(DirectorCommand::Withdraw {
                player: player.to_string(),
                annulled: false,
            }),
            (false, true) => Reading::Commands(DirectorCommand::Withdraw {
                player: player.to_string(),
                annulled: true,
            }),
            _ => ask_back(s, RequestKind::Withdrawal, Missing::Scoring),
        });
    }
    // TO §23: `Bitte fragen Sie anna@x.de, ob sie ihre Partien fortsetzt.`
    let first = s
        .words()
        .map(|(_, w)| w)
        .find(|w| !matches!(*w, "bitte" | "please" | "herr" | "frau"));
    let asks = matches!(
        first,
        Some("fragen" | "frage" | "frag" | "rueckfrage" | "ask" | "erkundigen")
    );
    if asks
        && !negated
        && let [player] = emails.as_slice()
    {
        let after = s
            .text
            .to_lowercase()
            .find(&player.to_lowercase())
            .map(|at| s.text[at + player.len()..].trim_start_matches([',', ':', ' ', ')']));
        return Some(match after.filter(|t| t.split_whitespace().count() >= 3) {
            Some(text) => Reading::Commands(DirectorCommand::Ask {
                player: player.to_string(),
                text: text.trim().to_string(),
            }),
            None => ask_back(s, RequestKind::Question, Missing::Text),
        });
    }
    // TO §30: `Die Züge der Partie FAX-2026-3/7 gehen ab sofort über mich.`
    let moves = s
        .find_by(|w| matches!(w, "zuege" | "zug" | "moves" | "move") || w.starts_with("zugmail"))
        .is_some();
    let through = (s.has(&["ueber"]) && s.has(&["mich", "tl", "turnierleiter"]))
        || (s.has(&["through"]) && s.has(&["me", "tl", "td", "director"]))
        || s.has(&["kopie", "copy"]) && s.has(&["mich", "me", "mir"]);
    if moves && through {
        let off = s.has(&["mehr", "longer", "aufgehoben", "lifted", "off", "nicht"]);
        return Some(match game_in(s) {
            Some(game) => Reading::Commands(DirectorCommand::ThroughDirector { game, on: !off }),
            None => ask_back(s, RequestKind::ThroughDirector, Missing::Game),
        });
    }
    None
}

// ---------------------------------------------------------------------------------------
// TO §2: draws — offer, acceptance, or a draw word that is neither for certain.

/// Adjectives and nouns that describe a position as drawn, no request.
const DRAW_DESCRIPTIONS: &[&str] = &[
    "remisbreite",
    "remislich",
    "remisverdaechtig",
    "remisverdacht",
    "remisendspiel",
    "remisstellung",
    "remistendenz",
    "remisschwanger",
    "remiswege",
    "remisweg",
    "drawish",
    "drawn",
];
/// `draw` as a verb of drawing: `draw your attention`, `draw me a diagram`.
const DRAW_OTHER_SENSE_NEXT: &[&str] = &[
    "your",
    "attention",
    "up",
    "conclusions",
    "conclusion",
    "on",
    "from",
    "out",
    "lots",
    "lot",
    "breath",
    "closer",
    "near",
    "picture",
    "pictures",
    "diagram",
    "diagrams",
    "sketch",
    "line",
    "lines",
    "map",
    "inspiration",
    "me",
    "him",
    "her",
    "them",
    "us",
    "some",
];
/// Words that offer (verbs in their forms, nouns).
const OFFER_WORDS: &[&str] = &[
    "biete",
    "bite",
    "biet",
    "bieten",
    "bietet",
    "anbieten",
    "anzubieten",
    "angeboten",
    "anbiete",
    "offeriere",
    "offerieren",
    "vorschlagen",
    "vorzuschlagen",
    "schlage",
    "einigen",
    "teilen",
    "offer",
    "offering",
    "offers",
    "offered",
    "propose",
    "proposing",
    "proposal",
    "suggest",
    "suggesting",
    "shall",
    "split",
    "share",
    "settle",
    "friedensangebot",
    "machen",
];
/// Words that accept for certain.
const ACCEPT_WORDS: &[&str] = &[
    "angenommen",
    "annehmen",
    "anzunehmen",
    "akzeptiere",
    "akzeptiert",
    "akzeptieren",
    "einverstanden",
    "zustimmen",
    "accept",
    "accepted",
    "accepting",
    "accepts",
    "agreed",
    "angenomen",
    "akzeptire",
];
/// Short words that accept when they open the sentence (`Ja, Remis!`, `OK, Remis.`).
const ACCEPT_OPENERS: &[&str] = &["ja", "yes", "ok", "okay", "gerne", "gern", "gladly", "fine"];

/// Whether word `w` (token `i`) is a draw word: `remis` and its compounds, `unentschieden`,
/// `Punkteteilung`, English `draw` as a noun.
fn draw_word(s: &Sentence, i: usize, w: &str) -> bool {
    // `Remise`: a shed.
    (w.starts_with("remis") && w != "remise")
        || w == "unentschieden"
        || w == "punkteteilung"
        || w == "friedensangebot"
        || w == "drawish"
        || ((w == "draw" || w == "drawn") && !draw_other_sense(s, i))
}

fn draw_other_sense(s: &Sentence, i: usize) -> bool {
    let next = s.toks.get(i + 1).and_then(Tok::word);
    next.is_some_and(|n| DRAW_OTHER_SENSE_NEXT.contains(&n))
}

/// Accepting words of a sentence: certain ones, `nehme … an`, `stimme … zu`, `I agree to`,
/// `I'll take the draw`, or an opener (`Ja, Remis`, `Na gut, dann eben remis`).
fn accepts(s: &Sentence) -> bool {
    // An opener begins the sentence or a clause of it (`Hi Bert, yes, let's call it a draw`).
    let opener = s.toks.iter().enumerate().any(|(i, t)| {
        t.word().is_some_and(|w| ACCEPT_OPENERS.contains(&w))
            && (i == 0 || matches!(s.toks[i - 1], Tok::Comma | Tok::Dash))
    });
    s.has(ACCEPT_WORDS)
        || particle_at_end(s, "an") && s.has(&["nehme", "nehmen", "nimm", "nehm"])
        || s.has(&["stimme", "stimmen"]) && particle_at_end(s, "zu")
        || s.has(&["gehe", "gehen"]) && particle_at_end(s, "ein")
        || s.has(&["agree"]) && !s.has(&["we", "us", "let's", "lets", "could", "shall"])
        || s.has(&["take"]) && !s.has(&["back"])
        || opener
        || bigram(s, "na", "gut")
        || bigram(s, "also", "gut")
        || bigram(s, "dann", "eben")
}

fn draw(s: &Sentence, before: Option<&Sentence>, after: &[Sentence]) -> Option<Reading> {
    let kind = RequestKind::Draw;
    let Some((d, dw)) = s
        .words()
        .find(|&(i, w)| draw_word(s, i, w))
        .map(|(i, w)| (i, w.to_string()))
    else {
        // `draw me a diagram`, `das Auto steht in der Remise`: the word, in another sense.
        return s
            .find_by(|w| w == "draw" || w == "drawing" || w == "remise")
            .map(|_| declines(kind, Why::OtherSense));
    };
    // `the game was drawn`, `in der Remisbreite`: a description.
    if DRAW_DESCRIPTIONS.contains(&dw.as_str()) && !s.has(OFFER_WORDS) && !accepts(s) {
        return Some(declines(kind, Why::Describes));
    }
    if s.has(REJECTIONS) || plays_on(s) || s.has(&["frueh", "early", "erst"]) {
        return Some(declines(kind, Why::Negated));
    }
    // `Wollen wir nicht Remis machen?`, `Shouldn't we call it a draw?`: an offer.
    if s.question
        && s.has(&[
            "wollen",
            "sollen",
            "sollten",
            "shall",
            "should",
            "shouldn't",
            "koennen",
        ])
        && s.has(&["wir", "we"])
    {
        return Some(Reading::Acts(Request::Offer));
    }
    // `kein Remis`, `no draw`, `ich biete kein Remis an`; a negation in another clause
    // (`ich kann nicht mehr, Remis?`) does not count.
    if negated(s, d) || s.find(&["agree", "agreed"]).is_some_and(|i| negated(s, i)) {
        return Some(declines(kind, Why::Negated));
    }
    // `Remis? Nein danke!`, `Remis? Auf keinen Fall!`: the partner's offer quoted and refused.
    if s.question
        && s.word_count() <= 2
        && after.first().is_some_and(|n| {
            n.words()
                .next()
                .is_some_and(|(_, w)| matches!(w, "nein" | "no" | "auf" | "never" | "niemals"))
                || plays_on(n)
        })
    {
        return Some(declines(kind, Why::Negated));
    }
    // `Danke für das Remisangebot, aber …`: the partner's offer, thanked for.
    if s.has(&["danke", "thanks", "thank"]) && !accepts(s) && !s.has(&["biete", "offer"]) {
        return Some(declines(kind, Why::AboutPartner));
    }
    // `Bei einem Remis steigen wir beide auf`: what a draw would mean.
    if bigram(s, "bei", "einem") || bigram(s, "with", "a") && s.has(&["would"]) {
        return Some(declines(kind, Why::Describes));
    }
    let accept = accepts(s);
    let offer = s.has(OFFER_WORDS)
        || dw.contains("angebot")
        || dw.contains("vorschlag")
        || dw.contains("offerte")
        || bigram(s, "call", "it")
        || bigram(s, "how", "about")
        || bigram(s, "was", "haeltst")
        || bigram(s, "was", "halten")
        || (s.has(&["wollen", "sollen", "koennen", "what", "wie"]) && s.question);
    let reported = ((s.has(PAST) || english_was(s)) && !s.question)
        || s.has(OTHER_GAME)
        || (s.has(THIRD_PERSON) && !s.question && !s.has(&["hiermit"]))
        || s.has(&["gespielt", "played", "endete", "ended"]);
    if reported && !(dw.contains("angebot") && s.has(&["ihr", "dein", "deinen", "ihren", "your"])) {
        return Some(declines(kind, Why::Reported));
    }
    // `Hast du mir Remis angeboten?`, `Did you offer a draw?`: a question about the partner's act.
    if s.question && s.has(&["hast", "haben", "did", "have"]) && second_person(s) {
        return Some(declines(kind, Why::AboutPartner));
    }
    // `Agreed. Draw.`: an acceptance split in two sentences.
    let short_after_accept = s.word_count() <= 2
        && before.is_some_and(|b| b.word_count() <= 2 && accepts(b) && !b.question);
    // An offer verb wins over an acceptance said only under a condition (`ich biete Remis an,
    // sofern Sie einverstanden sind`).
    let conditional_accept = s.has(&["sofern", "falls", "wenn", "if"]);
    if (accept && !(offer && conditional_accept) && !s.has(&["biete", "anbieten", "offeriere"]))
        || short_after_accept
    {
        if s.question {
            // `Nimmst du Remis an?`, `Would you accept a draw?`: asking the partner is offering.
            if second_person(s) {
                return Some(Reading::Acts(Request::Offer));
            }
            return Some(ask(RequestKind::Accept, s, Missing::Certainty));
        }
        // `Ich bin mit Remis einverstanden, falls Sie das auch so sehen.`: agreeing under a
        // condition may be an offer or an acceptance.
        if conditional_accept && !offer {
            return Some(ask(kind, s, Missing::Which));
        }
        if hedged(s) {
            return Some(ask(RequestKind::Accept, s, Missing::Certainty));
        }
        return Some(Reading::Acts(Request::Accept));
    }
    // `Über ein Remis könnten wir ja mal reden.`, `Maybe we could agree a draw?`
    if hedged(s) && s.has(&["wir", "we", "uns", "us"]) && !s.has(&["biete", "offer"]) {
        return Some(ask(RequestKind::Offer, s, Missing::Certainty));
    }
    if offer || s.question {
        if hedged(s) && !s.question && !s.has(&["gerne", "gern", "hiermit", "hereby", "like"]) {
            return Some(ask(RequestKind::Offer, s, Missing::Certainty));
        }
        // `Wäre ein Remis für Sie denkbar?`: a question whether a draw could be, not an offer.
        if s.question
            && s.has(&[
                "denkbar",
                "vorstellbar",
                "moeglich",
                "conceivable",
                "possible",
                "thinkable",
            ])
        {
            return Some(ask(RequestKind::Offer, s, Missing::Certainty));
        }
        // `Du hast mir Remis angeboten.`: the partner's offer, reported (not `… und schlage
        // Ihnen Remis vor`, where the writer offers).
        if !s.question
            && second_person(s)
            && !first_person(s)
            && s.has(&[
                "angeboten",
                "offered",
                "vorgeschlagen",
                "suggested",
                "proposed",
            ])
        {
            return Some(declines(kind, Why::AboutPartner));
        }
        return Some(Reading::Acts(Request::Offer));
    }
    Some(ask(kind, s, Missing::Which))
}

/// `Einverstanden.`, `Dein Angebot nehme ich an.`: an acceptance that names no draw.
fn bare_accept(s: &Sentence) -> Option<Reading> {
    if s.words().any(|(i, w)| draw_word(s, i, w)) || s.question {
        return None;
    }
    let names_offer = s.has(&["angebot", "vorschlag", "offer", "proposal"]);
    let short =
        s.word_count() <= 2 && s.has(&["einverstanden", "angenommen", "agreed", "accepted"]);
    if !(short || names_offer && accepts(s)) || negated(s, 0) || s.has(REJECTIONS) {
        return None;
    }
    Some(ask(RequestKind::Accept, s, Missing::Which))
}

// ---------------------------------------------------------------------------------------
// FIDE 9.2: the claim of a draw by repetition.

fn claim(s: &Sentence) -> Option<Reading> {
    // `dreimal`, `zum dritten Mal`, `three times`, `for the third time`.
    let three_times = s.find_by(|w| w.starts_with("dreimal") || w.starts_with("dreifach") || w == "threefold").is_some()
        || bigram(s, "three", "times")
        || bigram(s, "dritten", "mal")
        || bigram(s, "third", "time")
        || bigram(s, "drei", "mal")
        || s.toks.windows(2).any(|w| matches!(w, [Tok::Num(3), Tok::Word { folded, .. }] if folded == "mal" || folded == "times"));
    let i = s
        .find_by(|w| {
            w.ends_with("wiederholung")
                || w.starts_with("dreimal")
                || w.starts_with("dreifach")
                || w == "threefold"
                || w == "repetition"
                || w == "repeated"
                || w == "wiederholt"
                || w == "dauerschach"
                || w == "perpetual"
        })
        .or_else(|| {
            if !three_times {
                return None;
            }
            s.find(&["stellung", "position", "times", "mal", "time"])
        })
        .or_else(|| {
            // `Ich reklamiere Remis.`, `Ich beanspruche Remis gemäß FIDE-Regel 9.2.`
            let verb = s.find(&[
                "reklamiere",
                "reklamieren",
                "beanspruche",
                "beantrage",
                "verlange",
                "fordere",
                "claim",
                "claiming",
            ])?;
            s.words().any(|(j, w)| draw_word(s, j, w)).then_some(verb)
        })?;
    let word = s.toks[i].word().unwrap_or_default().to_string();
    // `Wiederholung: 24. Td2`: the label of a repeated move (TO §2), not a claim.
    if matches!(s.toks.get(i + 1), Some(Tok::Colon))
        && matches!(s.toks.get(i + 2), Some(Tok::Ordinal(_) | Tok::Num(_)))
    {
        return None;
    }
    let kind = RequestKind::Claim;
    let draw = s.words().any(|(j, w)| draw_word(s, j, w));
    // `I repeated my move`, `Dauerschach!` alone: no claim word without the three times or a draw.
    if matches!(word.as_str(), "repeated" | "wiederholt") && !three_times && !draw {
        return None;
    }
    // `Ist das nicht schon eine dreimalige Stellungswiederholung?`: a question that claims, perhaps.
    let rhetorical = s.question
        && s.words()
            .next()
            .is_some_and(|(_, w)| matches!(w, "ist" | "is" | "isnt" | "isn't" | "haben" | "sind"));
    if rhetorical {
        return Some(ask(kind, s, Missing::Certainty));
    }
    if negated(s, i) || s.has(REJECTIONS) || plays_on(s) {
        return Some(declines(kind, Why::Negated));
    }
    let claims = s.has(&[
        "beantrage",
        "beantragen",
        "reklamiere",
        "reklamieren",
        "fordere",
        "verlange",
        "claim",
        "claiming",
        "claims",
        "geltend",
        "beanspruche",
    ]);
    // `Die Stellung wiederholt sich ständig, wollen wir nicht Remis machen?`: an offer.
    if draw && s.question && s.has(&["wollen", "sollen", "shall"]) {
        return None;
    }
    if s.question
        || (hedged(s) || s.has(&["droht", "moeglich", "possible", "faerchte", "fuerchte"]))
            && !claims
    {
        if s.question && second_person(s) && !first_person(s) {
            return Some(declines(kind, Why::AboutPartner));
        }
        if !s.question && !claims && !draw {
            return Some(declines(kind, Why::Describes));
        }
        return Some(ask(kind, s, Missing::Certainty));
    }
    if s.has(PAST) && !claims && !draw {
        return Some(declines(kind, Why::Reported));
    }
    // `Dauerschach. Remis.`: perpetual check is no claim by itself.
    if matches!(word.as_str(), "dauerschach" | "perpetual") && !three_times && !claims {
        return Some(ask(kind, s, Missing::Certainty));
    }
    if claims || draw || s.word_count() <= 4 && (three_times || word.ends_with("wiederholung")) {
        return Some(Reading::Acts(Request::Claim));
    }
    Some(ask(kind, s, Missing::Certainty))
}

// ---------------------------------------------------------------------------------------
// TO §2: resignation.

fn resign(s: &Sentence) -> Option<Reading> {
    let kind = RequestKind::Resign;
    let short = s.word_count() <= 3;
    let word_at = s.find_by(|w| {
        matches!(
            w,
            "aufgeben"
                | "aufgegeben"
                | "aufzugeben"
                | "kapituliere"
                | "kapitulation"
                | "kapitulieren"
                | "resign"
                | "resigns"
                | "resigned"
                | "resigning"
                | "resignation"
                | "concede"
                | "concedes"
                | "conceded"
                | "conceding"
                | "resigniere"
        )
    });
    let phrase_at = || {
        let give = s.find(&["gebe", "geb", "gibt", "gib", "geben", "gab", "gebt"])?;
        let contiguous_auf = s.toks.get(give + 1).and_then(Tok::word) == Some("auf")
            && !s.has(&["acht", "obacht", "post", "brief"]);
        (particle_at_end(s, "auf")
            || contiguous_auf
            || s.has(&["verloren"])
            || s.has(&["geschlagen"]))
        .then_some(give)
    };
    let english_at = || {
        let give = s.find(&["give", "gives", "giving", "gave"])?;
        s.has(&["up"]).then_some(give)
    };
    let idiom_at = || {
        (s.has(&["waffen", "handtuch", "towel", "segel"]))
            .then(|| {
                s.find(&[
                    "strecke", "werfe", "throw", "throwing", "strecken", "streiche",
                ])
            })
            .flatten()
    };
    let noun_at = || s.find(&["aufgabe"]);
    let Some(i) = word_at
        .or_else(phrase_at)
        .or_else(english_at)
        .or_else(idiom_at)
        .or_else(noun_at)
    else {
        // `Die Partie ist wohl verloren.`, `I think the game is yours.`, `Glückwunsch zum Sieg`:
        // a resignation, perhaps.
        let lost =
            s.has(&["verloren", "lost"]) && s.has(&["partie", "game", "stellung", "position"]);
        let yours = s.has(&["game", "partie", "sieg", "punkt", "point"])
            && (s.has(&["yours"]) || bigram(s, "gehoert", "dir") || bigram(s, "gehoert", "ihnen"));
        let congratulates = s
            .find_by(|w| {
                w.starts_with("glueckwunsch")
                    || w == "gratuliere"
                    || w.starts_with("congratulation")
            })
            .is_some()
            && (s.has(&["sieg", "win", "victory", "partie", "game"]) || s.word_count() <= 2);
        if !(lost || yours || congratulates) || s.has(OTHER_GAME) || s.has(PAST) || plays_on(s) {
            return None;
        }
        if s.question || negated(s, 0) || s.has(&["aber", "but", "noch", "still", "trotzdem"]) {
            return Some(declines(kind, Why::Describes));
        }
        return Some(ask(kind, s, Missing::Certainty));
    };
    let word = s.toks[i].word().unwrap_or_default();
    if word == "aufgabe" && !short && !s.has(&["erklaere", "partie", "hiermit", "meine"]) {
        return Some(declines(kind, Why::OtherSense));
    }
    if word == "aufgegeben"
        && s.has(&[
            "post",
            "brief",
            "paket",
            "bestellung",
            "anzeige",
            "hoffnung",
        ])
    {
        return Some(declines(kind, Why::OtherSense));
    }
    if matches!(word, "give" | "gives" | "giving" | "gave")
        && s.has(&["hope", "hoffnung", "on", "smoking", "rauchen"])
    {
        return Some(declines(kind, Why::OtherSense));
    }
    if word == "resigned" && s.has(&["job", "from", "post", "position", "office", "amt"]) {
        return Some(declines(kind, Why::OtherSense));
    }
    if negated(s, i) {
        return Some(declines(kind, Why::Negated));
    }
    if s.has(&["nearly", "almost", "fast", "beinahe", "beinah"]) {
        return Some(declines(kind, Why::Reported));
    }
    let partner = (s.has(&["du", "dich", "you", "gibst", "aufgibst", "er", "he", "she"])
        || s.toks
            .iter()
            .skip(1)
            .any(|t| matches!(t, Tok::Word { folded, upper: true } if folded == "sie")))
        && !first_person(s);
    if s.question {
        if partner || second_person(s) && !s.has(&["ich", "i"]) {
            return Some(declines(kind, Why::AboutPartner));
        }
        return Some(ask(kind, s, Missing::Certainty));
    }
    // The past, another game, another person: in the clause of the word (`I resign – well
    // played!` resigns).
    let clause = s.clause_words(i);
    let in_clause = |list: &[&str]| clause.iter().any(|w| list.contains(w));
    let third = in_clause(THIRD_PERSON) && !in_clause(&["ich", "i", "hiermit", "hereby"]);
    if partner || third {
        let why = if in_clause(PAST) || third {
            Why::Reported
        } else {
            Why::AboutPartner
        };
        return Some(declines(kind, why));
    }
    if in_clause(OTHER_GAME) || in_clause(PAST) || in_clause(&["gespielt", "played"]) {
        return Some(declines(kind, Why::Reported));
    }
    if word == "resigniere" {
        return Some(ask(kind, s, Missing::Certainty));
    }
    if hedged(s)
        || s.has(&["werde", "will", "going"]) && !s.has(&["hiermit", "hereby"])
        || s.has(&["dachte", "thought"])
    {
        return Some(ask(kind, s, Missing::Certainty));
    }
    Some(Reading::Acts(Request::Resign))
}

// ---------------------------------------------------------------------------------------
// TO §13: the announcement of more than 10 days for one move (its days: `super::tokens::days_at`).

fn announce(s: &Sentence) -> Option<Reading> {
    const MORE: &[&str] = &[
        "mehr", "laenger", "ueber", "more", "longer", "over", "beyond",
    ];
    const EXCEED: &[&str] = &["ueberschreiten", "ueberschreite", "exceed", "exceeding"];
    const NEED: &[&str] = &[
        "brauche",
        "brauchen",
        "benoetige",
        "benoetigen",
        "need",
        "needs",
        "needed",
        "require",
        "dauern",
        "dauert",
        "nehmen",
        "nehme",
        "take",
        "beanspruche",
        "beanspruchen",
        "expect",
    ];
    let kind = RequestKind::Announce;
    // `mehr als zehn Tage`, `über 10 Tage`, `die zehn Tage überschreiten`, `14 Tage brauchen`,
    // `in about three weeks`.
    let spans: Vec<(usize, u32)> = (0..s.toks.len())
        .filter_map(|j| days_at(s, j).map(|d| (j, d)))
        .collect();
    let more = s.find(MORE);
    let exceed = s.find(EXCEED);
    let leave_words = s.words().any(|(_, w)| leave_word(w));
    let counted = spans.iter().find_map(|&(j, d)| {
        let after_more = more.is_some_and(|m| m < j && j - m <= 4);
        let mine = (s.has(NEED) || s.has(&["move", "zug"])) && !leave_words;
        let beyond = after_more && d >= 10 || exceed.is_some() || d > 10 && mine;
        beyond.then_some((j, d))
    });
    let announced = s.find_by(|w| {
        w.starts_with("ankuendig") || w == "kuendige" || w == "announce" || w == "announcement"
    });
    let s13 = s
        .toks
        .windows(2)
        .any(|p| matches!(p, [Tok::Section, Tok::Num(13) | Tok::Ordinal(13)]));
    let melde = s.has(&["melde"]) && particle_at_end(s, "an") || s.has(&["anmelden"]);
    let more_time = s
        .find_by(|w| matches!(w, "laenger" | "longer"))
        .or_else(|| {
            s.find(&["mehr", "more"])
                .filter(|_| s.has(&["zeit", "time", "bedenkzeit"]))
        })
        .or_else(|| {
            s.find(&["dauern", "dauert"])
                .filter(|_| s.has(&["diesmal", "etwas", "while", "laenger"]))
        })
        .filter(|_| s.has(NEED) || s.has(&["dauern", "dauert"]));
    let i = match (counted, announced, more_time) {
        (Some((j, _)), _, _) => j,
        (None, Some(i), _) if s13 || s.has(&["bedenkzeit", "tage", "days", "zeit", "time"]) => i,
        // `Die Ankündigung der Vereinsmeisterschaft …`: another announcement.
        (None, Some(_), None) if !s13 => return Some(declines(kind, Why::OtherSense)),
        (None, None, _) if s13 && melde => s.find(&["melde", "anmelden"]).unwrap_or(0),
        (None, _, Some(i)) => i,
        _ => {
            // `Ich brauche mehr als eine Woche.`: a span, but not said to be over 10 days.
            let (j, _) = spans.iter().find(|&&(j, d)| {
                (7..10).contains(&d) && more.is_some_and(|m| m < j) && s.has(NEED)
            })?;
            if negated(s, *j) || second_person(s) && !first_person(s) {
                return None;
            }
            return Some(ask(kind, s, Missing::Days));
        }
    };
    if negated(s, i) && !s.has(&["ueberschreiten", "ueberschreite"]) {
        return Some(declines(kind, Why::Negated));
    }
    if s.has(&["took", "gebraucht", "benoetigt", "had"]) && !s.question {
        return Some(declines(kind, Why::Reported));
    }
    if second_person(s) && !first_person(s) && !s.has(&["expect"]) {
        return Some(declines(kind, Why::AboutPartner));
    }
    if let Some((_, d)) = counted
        && d < 10
    {
        return Some(declines(kind, Why::OtherSense));
    }
    if counted.is_none() && !s13 && announced.is_none() {
        return Some(ask(kind, s, Missing::Days));
    }
    if s.question
        || s.has(&[
            "vielleicht",
            "eventuell",
            "maybe",
            "perhaps",
            "possibly",
            "might",
        ])
    {
        return Some(ask(kind, s, Missing::Certainty));
    }
    Some(Reading::Acts(Request::Announce))
}

// ---------------------------------------------------------------------------------------
// TO §4: taking back a move, an offer, a resignation.

fn take_back(s: &Sentence) -> Option<Reading> {
    const OBJECTS: &[&str] = &[
        "zug",
        "zuege",
        "move",
        "moves",
        "offer",
        "resignation",
        "draw",
        "angebot",
        "remisangebot",
        "aufgabe",
        "it",
        "zugangabe",
    ];
    let kind = RequestKind::TakeBack;
    let i = s
        .find_by(|w| {
            w.starts_with("zuruecknehm")
                || w.starts_with("zurueckzunehm")
                || w.starts_with("zurueckgenommen")
                || w.starts_with("zurueckzieh")
                || w.starts_with("zurueckzuzieh")
                || w.starts_with("zurueckgezogen")
                || w.starts_with("widerruf")
                || w == "ruecknahme"
                || w == "rueckgaengig"
                || w == "takeback"
                || w == "retract"
                || w == "retracting"
                || w == "undo"
        })
        .or_else(|| {
            // `Ich nehme meinen Zug zurück`; not `Ich bin aus dem Urlaub zurück`.
            let verb = s.find(&["nehme", "nimm", "ziehe", "nehmen", "ziehen", "nehm"])?;
            (particle_at_end(s, "zurueck") || bigram(s, "zurueck", "nehmen")).then_some(verb)
        })
        // `Zug zurück!`
        .or_else(|| {
            bigram(s, "zug", "zurueck")
                .then(|| s.find(&["zug"]))
                .flatten()
        })
        .or_else(|| {
            let t = s.find(&["take", "taking", "took"])?;
            s.has(&["back"]).then_some(t)
        })
        .or_else(|| {
            let t = s.find(&[
                "withdraw",
                "withdrawing",
                "cancel",
                "streichen",
                "streiche",
                "korrigieren",
                "aendern",
                "change",
            ])?;
            (s.has(OBJECTS) && !s.has(&["segel"])).then_some(t)
        })
        .or_else(|| {
            // `Mein Remisangebot gilt nicht mehr.`
            let t = s.find(&["gilt", "gueltig", "stands", "valid"])?;
            (s.has(&["angebot", "remisangebot", "offer", "zug", "move"])
                && (bigram(s, "nicht", "mehr") || bigram(s, "no", "longer")))
            .then_some(t)
        })
        .or_else(|| {
            // `mein letzter Zug war ein Versehen`, `ich habe mich vertippt`
            let t = s.find(&[
                "versehen",
                "irrtum",
                "vertippt",
                "verschrieben",
                "mistake",
                "typo",
                "slip",
                "wrong",
                "falsch",
            ])?;
            (s.has(&["zug", "move", "zugangabe"])
                && first_person(s)
                && !s.has(&["dein", "your", "ihr"]))
            .then_some(t)
        })
        .or_else(|| {
            // `Bitte ignorieren Sie meine letzte Mail`, `Please disregard my previous email.`
            s.find(&["ignorieren", "ignore", "disregard", "vergessen", "forget"])
        })?;
    // `Ich nehme alles zurück, was ich gesagt habe`: words taken back, no move.
    if s.has(&["gesagt", "said", "geschrieben", "written", "behauptet"]) && !s.has(OBJECTS) {
        if s.has(&["vergessen", "forget"]) {
            return Some(ask(kind, s, Missing::Certainty));
        }
        return Some(declines(kind, Why::OtherSense));
    }
    let word = s.toks[i].word().unwrap_or_default();
    if matches!(
        word,
        "ignorieren" | "ignore" | "disregard" | "vergessen" | "forget"
    ) {
        if !s.has(&[
            "mail",
            "email",
            "nachricht",
            "message",
            "zug",
            "move",
            "geschrieben",
        ]) {
            return None;
        }
        if !s.has(&["zug", "move", "falsch", "wrong"]) {
            return Some(ask(kind, s, Missing::Certainty));
        }
    }
    if negated(s, i) && !matches!(word, "gilt" | "gueltig" | "stands" | "valid") {
        return Some(declines(kind, Why::Negated));
    }
    if second_person(s) && !first_person(s) && !s.has(&["bitte", "please", "kann", "can"]) {
        return Some(declines(kind, Why::AboutPartner));
    }
    Some(Reading::Acts(Request::TakeBack))
}

// ---------------------------------------------------------------------------------------
// TO §24: a planned leave withdrawn before it begins.

/// `Urlaub zurückgezogen`, `Ich ziehe meinen Urlaub vom 20.12. bis 3.1. zurück`, `Mein Urlaub
/// fällt aus`, `Ich storniere meinen Urlaub`, `cancel leave`, `I withdraw my holiday notice`:
/// a leave word and a word that withdraws it, in the writer's own sentence.
fn withdraw_leave(s: &Sentence) -> Option<Reading> {
    let kind = RequestKind::WithdrawLeave;
    let leave = s.find_by(|w| leave_word(w) || w == "leave")?;
    let i = s
        .find_by(|w| {
            w.starts_with("zurueckgezogen")
                || w.starts_with("zurueckzieh")
                || w.starts_with("zurueckzuzieh")
                || w.starts_with("storn")
                || w.starts_with("abgesagt")
                || w.starts_with("absag")
                || w == "entfaellt"
                || w.starts_with("cancel")
                || w.starts_with("withdr")
                || w == "annul"
        })
        .or_else(|| {
            // `Ich ziehe meinen Urlaub zurück`, `Ich sage meinen Urlaub ab`, `fällt aus`.
            let verb = s.find(&["ziehe", "ziehen", "sage", "sagen", "faellt"])?;
            (particle_at_end(s, "zurueck") || particle_at_end(s, "ab") || particle_at_end(s, "aus"))
                .then_some(verb)
        })?;
    // `I'll leave it`: the verb, not a leave.
    if s.toks[leave].word() == Some("leave") && !s.has(&["my", "the", "cancel", "withdraw"]) {
        return None;
    }
    if negated(s, i) {
        return Some(declines(kind, Why::Negated));
    }
    if second_person(s) && !first_person(s) || s.question && !first_person(s) {
        return Some(declines(kind, Why::AboutPartner));
    }
    let (dates, _) = span_of(s);
    let span = match dates.as_slice() {
        [from, to, ..] => Some(DateSpan {
            from: *from,
            to: *to,
        }),
        _ => None,
    };
    Some(Reading::Acts(Request::WithdrawLeave(span)))
}

// ---------------------------------------------------------------------------------------
// `Status`: the writer asks for his games.

fn status(s: &Sentence) -> Option<Reading> {
    const ABOUT_MINE: &[&str] = &[
        "meine",
        "meiner",
        "meinen",
        "my",
        "alle",
        "all",
        "bitte",
        "please",
        "send",
        "schicken",
        "senden",
        "zusenden",
        "zusendung",
        "schick",
        "schicke",
        "uebersenden",
        "mitteilen",
        "partien",
        "games",
        "turnier",
        "tournament",
        "aktuellen",
        "current",
    ];
    let kind = RequestKind::Status;
    let i = s.find_by(|w| {
        w.starts_with("status")
            || matches!(
                w,
                "stand"
                    | "standes"
                    | "staende"
                    | "zwischenstand"
                    | "uebersicht"
                    | "overview"
                    | "tabelle"
                    | "kreuztabelle"
                    | "crosstable"
                    | "standings"
                    | "spielstand"
                    | "aufstellung"
                    | "liste"
                    | "list"
                    | "state"
            )
    });
    let i = match i {
        Some(i) => i,
        None => {
            // `Wie stehen meine Partien?`, `Could you tell me whose move it is in my games?`,
            // `Wie viel Bedenkzeit habe ich noch?`
            let games = s
                .find(&["partien", "games", "spiele"])
                .filter(|_| s.has(&["meine", "meiner", "meinen", "my", "ich", "i"]));
            let time = s
                .find(&["bedenkzeit", "restzeit"])
                .filter(|_| s.has(&["noch", "left", "habe", "have"]));
            let at = games.or(time)?;
            let asks = s.question || s.has(&["fragen", "ask", "wissen", "know"]);
            if !asks || s.has(OTHER_GAME) && !s.has(&["meine", "my", "meiner"]) {
                return None;
            }
            at
        }
    };
    let word = s.toks[i].word().unwrap_or_default();
    if negated(s, i) {
        return Some(declines(kind, Why::Negated));
    }
    if matches!(
        word,
        "stand" | "standes" | "aufstellung" | "liste" | "list" | "state"
    ) && !s.has(&[
        "meiner",
        "partien",
        "games",
        "turnier",
        "tournament",
        "meine",
    ]) {
        return Some(declines(kind, Why::OtherSense));
    }
    let alone = s.word_count() <= 2;
    let asks = s.question || s.has(ABOUT_MINE) || s.has(&["fragen", "bitte", "ask"]);
    if alone || asks && !s.has(PAST) {
        return Some(Reading::Acts(Request::Status));
    }
    Some(declines(kind, Why::OtherSense))
}

// ---------------------------------------------------------------------------------------
// TO §24: leave, with its first and last day.

/// Words that always carry a leave.
fn leave_word(w: &str) -> bool {
    (w.contains("urlaub")
        && !w.starts_with("urlaubsgruess")
        && !w.starts_with("urlaubsgruesse")
        && w != "urlaubsreif")
        || w == "ferien"
        || w.starts_with("abwesenheit")
        || w == "abwesend"
        || w == "vacation"
        || w == "vacations"
        || w == "holiday"
        || w == "holidays"
}

/// Words that carry a leave only beside a date or a span (`ich bin vom … bis … verreist`,
/// `away for two weeks`).
const LEAVE_WITH_DATE: &[&str] = &[
    "verreist",
    "verreise",
    "reise",
    "reisen",
    "unterwegs",
    "kur",
    "reha",
    "erreichbar",
    "away",
    "absent",
    "travelling",
    "traveling",
    "trip",
    "unavailable",
    "reachable",
    "offline",
    "abroad",
    "weg",
    "krankenhaus",
    "klinik",
    "hospital",
];
/// Month names, folded.
const MONTHS: &[&str] = &[
    "januar",
    "jaenner",
    "februar",
    "maerz",
    "april",
    "mai",
    "juni",
    "juli",
    "august",
    "september",
    "oktober",
    "november",
    "dezember",
    "january",
    "february",
    "march",
    "may",
    "june",
    "july",
    "october",
    "december",
];
/// A stay in hospital: a reason for special leave (TO §24), which the director grants.
const HOSPITAL: &[&str] = &["krankenhaus", "klinik", "hospital"];

/// English `leave` as a noun (`on leave`, `leave from …`, `Leave:`), not the verb (`leave it`).
fn leave_noun(s: &Sentence, i: usize) -> bool {
    let prev = i
        .checked_sub(1)
        .and_then(|p| s.toks.get(p))
        .and_then(Tok::word);
    let next = s.toks.get(i + 1);
    prev.is_some_and(|p| {
        matches!(
            p,
            "on" | "of"
                | "my"
                | "annual"
                | "a"
                | "take"
                | "taking"
                | "request"
                | "requesting"
                | "some"
                | "for"
                | "the"
        )
    }) || matches!(next, Some(Tok::Colon))
        || next
            .and_then(Tok::word)
            .is_some_and(|n| matches!(n, "from" | "request" | "starting" | "of" | "notice"))
        || i == 0 && s.dates().len() >= 2
}

/// The dates of a sentence, in order: `10.12. – 23.12.2026`, `vom 10. bis 23. Dezember`,
/// `1.–14. Februar 2027`, `zwischen dem 5. und 19. April` (a bare day before a date takes its
/// month and year); and the token index of the first.
fn span_of(s: &Sentence) -> (Vec<StatedDate>, Option<usize>) {
    let mut dates = Vec::new();
    let mut first_at = None;
    for (i, t) in s.toks.iter().enumerate() {
        match t {
            Tok::Date(d) => {
                first_at.get_or_insert(i);
                dates.push(*d);
            }
            Tok::Ordinal(n) | Tok::Num(n) if (1..=31).contains(n) && dates.is_empty() => {
                let sep = s.toks.get(i + 1);
                let joined = matches!(sep, Some(Tok::Dash))
                    || sep.and_then(Tok::word).is_some_and(|w| {
                        matches!(w, "bis" | "to" | "until" | "till" | "und" | "and")
                    });
                let to = (i + 2..(i + 5).min(s.toks.len())).find_map(|j| match &s.toks[j] {
                    Tok::Date(d) => Some(*d),
                    _ => None,
                });
                if joined && let Some(to) = to {
                    first_at.get_or_insert(i);
                    dates.push(StatedDate {
                        day: *n,
                        month: to.month,
                        year: to.year,
                    });
                }
            }
            _ => {}
        }
    }
    (dates, first_at)
}

/// Whether `d` … `e` is a span in order; without years it may cross the new year, but only by
/// a few weeks (`20.12. – 3.1.`, not `10.12. – 23.11.`).
fn before(d: &StatedDate, e: &StatedDate) -> bool {
    match (d.year, e.year) {
        (Some(a), Some(b)) if a != b => a < b && d.month >= 11 && e.month <= 2,
        (None, _) | (_, None) if d.month > e.month => d.month >= 11 && e.month <= 2,
        _ => (d.month, d.day) <= (e.month, e.day),
    }
}

fn leave(s: &Sentence, after: &[Sentence]) -> Option<Reading> {
    let (mut dates, mut first_at) = span_of(s);
    let kind = RequestKind::Leave;
    let strong = s
        .words()
        .find(|&(i, w)| leave_word(w) || w == "leave" && leave_noun(s, i));
    let period = s
        .toks
        .iter()
        .enumerate()
        .any(|(j, _)| days_at(s, j).is_some_and(|d| d >= 7));
    // A span alone carries a leave only when it is not thinking time (`mehr als 10 Tage`).
    let period = period && !s.has(&["mehr", "more", "laenger", "longer", "zug", "move"]);
    // `Von Mitte bis Ende März bin ich verreist`: a month without days.
    let month = s.words().any(|(_, w)| MONTHS.contains(&w));
    let weak = || {
        s.words()
            .find(|&(_, w)| LEAVE_WITH_DATE.contains(&w))
            .filter(|_| !dates.is_empty() || period || month)
    };
    let Some((i, word)) = strong.or_else(weak).map(|(i, w)| (i, w.to_string())) else {
        // `I will leave it to you`: the verb; `Urlaubsgrüße`, `urlaubsreif`: no leave asked.
        return s
            .find_by(|w| w == "leave" || w.starts_with("urlaub"))
            .map(|_| declines(kind, Why::OtherSense));
    };
    if !matches!(word.as_str(), "erreichbar" | "reachable" | "unavailable") && negated(s, i) {
        return Some(declines(kind, Why::Negated));
    }
    // The dates may stand in the sentences after it (`Urlaubsmeldung. 10.12.2026 – 23.12.2026`,
    // `Beginn: 10.12.2026` / `Ende: 23.12.2026`), up to the next leave word.
    for n in after {
        if dates.len() >= 2
            || n.words()
                .any(|(j, w)| leave_word(w) || w == "leave" && leave_noun(n, j))
        {
            break;
        }
        let (more, _) = span_of(n);
        if dates.is_empty() {
            first_at = None;
        }
        dates.extend(more);
    }
    let mine = s.has(&[
        "ich", "i", "mein", "meine", "meinen", "meinem", "meiner", "mir", "mich", "my", "me",
        "i'm", "i'll", "i'd", "bin", "am",
    ]);
    if HOSPITAL.contains(&word.as_str()) && dates.is_empty() {
        return None;
    }
    if s.has(WISHES) && (dates.is_empty() || !mine) {
        return Some(declines(kind, Why::OtherSense));
    }
    if second_person(s) && !mine && !s.has(&["ihnen", "dir", "you"])
        || s.question && second_person(s) && !mine
    {
        return Some(declines(kind, Why::AboutPartner));
    }
    // `Meine Frau hat vom 10. bis 23.12. Urlaub, ich leider nicht.`: another's leave, in the
    // clause of the word.
    let clause = s.clause_words(i);
    let in_clause = |list: &[&str]| clause.iter().any(|w| list.contains(w));
    if in_clause(THIRD_PERSON)
        && in_clause(&["hat", "has", "ist", "is", "macht", "nimmt"])
        && !in_clause(&["ich", "i", "i'm", "bin", "am"])
        || s.has(&["leider"]) && negated(s, s.toks.len().saturating_sub(1))
    {
        return Some(declines(kind, Why::Reported));
    }
    if english_was(s)
        || s.has(&[
            "war",
            "waren",
            "were",
            "hatte",
            "had",
            "letztes",
            "letzten",
            "vergangenen",
            "gehabt",
            "bestaetigt",
            "confirmed",
            "genehmigt",
            "approved",
        ])
        || s.has(&["zurueck", "back"]) && dates.len() < 2
        || s.has(&["nach", "after"]) && dates.is_empty()
    {
        return Some(declines(kind, Why::Reported));
    }
    // `Zeit für Urlaub habe ich erst im Sommer`: none now.
    if s.has(&["erst"]) && dates.is_empty() {
        return Some(declines(kind, Why::Describes));
    }
    if !mine
        && dates.is_empty()
        && !s.has(&[
            "urlaub",
            "urlaubsmeldung",
            "urlaubsantrag",
            "leave",
            "vacation",
        ])
        && s.word_count() > 2
    {
        return Some(declines(kind, Why::OtherSense));
    }
    // `vom 1. bis 10. Juni und vom 1. bis 10. September`: two leaves, one per mail.
    let spans = s
        .toks
        .windows(3)
        .filter(|w| {
            matches!(w[0], Tok::Date(_) | Tok::Ordinal(_) | Tok::Num(_))
                && (matches!(w[1], Tok::Dash)
                    || w[1]
                        .word()
                        .is_some_and(|x| matches!(x, "bis" | "to" | "until" | "till")))
                && matches!(w[2], Tok::Date(_))
        })
        .count();
    if spans >= 2 {
        return Some(ask(kind, s, Missing::OnePerMail));
    }
    let missing = match dates.as_slice() {
        [] => Missing::Dates,
        [_] => {
            let at = first_at.unwrap_or(0);
            let prev: Vec<&str> = (at.saturating_sub(3)..at)
                .filter_map(|j| s.toks.get(j).and_then(Tok::word))
                .collect();
            if prev
                .iter()
                .any(|w| matches!(*w, "bis" | "until" | "till" | "to" | "through"))
            {
                Missing::FirstDay
            } else {
                Missing::LastDay
            }
        }
        [from, to, ..] => {
            let unsure = s.has(&[
                "vielleicht",
                "eventuell",
                "maybe",
                "perhaps",
                "possibly",
                "irgendwann",
                "ungefaehr",
                "etwa",
                "circa",
                "ca",
                "about",
                "around",
                "voraussichtlich",
                "probably",
                "wahrscheinlich",
            ]) || HOSPITAL.contains(&word.as_str());
            if !before(from, to) {
                Missing::Order
            } else if unsure {
                Missing::Certainty
            } else {
                return Some(Reading::Acts(Request::Leave(DateSpan {
                    from: *from,
                    to: *to,
                })));
            }
        }
    };
    Some(ask(kind, s, missing))
}

#[cfg(test)]
mod tests {
    use super::super::{Reading, Request, Why, read_paragraph};
    use crate::letter::types::{DateSpan, Missing, RequestKind, StatedDate};

    fn one(text: &str) -> Reading {
        let reads = read_paragraph(text);
        assert_eq!(reads.len(), 1, "{text}: {reads:?}");
        reads[0].reading.clone()
    }

    fn asks(text: &str) -> (RequestKind, Missing) {
        match one(text) {
            Reading::Asks(a) => (a.kind, a.missing),
            other => panic!("{text}: {other:?}"),
        }
    }

    fn d(day: u32, month: u32, year: Option<i32>) -> StatedDate {
        StatedDate { day, month, year }
    }

    #[test]
    fn s24_leave_in_sentences() {
        let span = Request::Leave(DateSpan {
            from: d(10, 12, Some(2026)),
            to: d(23, 12, Some(2026)),
        });
        for t in [
            "Ich nehme Urlaub vom 10.12.2026 bis 23.12.2026.",
            "Urlaubsmeldung: 10.12.2026 – 23.12.2026",
            "Ich bin vom 10.12.2026 bis zum 23.12.2026 im Urlaub.",
            "I will be on leave from 10 December 2026 to 23 December 2026.",
        ] {
            assert_eq!(one(t), Reading::Acts(span), "{t}");
        }
        assert_eq!(
            one("Hiermit melde ich Urlaub vom 10.12. bis 23.12.2026 an."),
            Reading::Acts(Request::Leave(DateSpan {
                from: d(10, 12, None),
                to: d(23, 12, Some(2026))
            }))
        );
        assert_eq!(
            one("Urlaub 1.-14. Februar 2027"),
            Reading::Acts(Request::Leave(DateSpan {
                from: d(1, 2, Some(2027)),
                to: d(14, 2, Some(2027))
            }))
        );
        assert_eq!(
            one("I'm taking my annual leave from the 1st to the 21st of August 2027."),
            Reading::Acts(Request::Leave(DateSpan {
                from: d(1, 8, Some(2027)),
                to: d(21, 8, Some(2027))
            }))
        );
        assert_eq!(
            asks("Ich bin ab dem 10.12. im Urlaub."),
            (RequestKind::Leave, Missing::LastDay)
        );
        assert_eq!(
            asks("Ich mache Urlaub über Weihnachten."),
            (RequestKind::Leave, Missing::Dates)
        );
        assert_eq!(
            asks("Urlaub 10.12.-23.11."),
            (RequestKind::Leave, Missing::Order)
        );
        assert_eq!(
            one("Im Urlaub war ich in Italien."),
            Reading::Declines {
                kind: RequestKind::Leave,
                why: Why::Reported
            }
        );
        assert!(matches!(
            one("I will leave it to you."),
            Reading::Declines {
                why: Why::OtherSense,
                ..
            }
        ));
    }

    #[test]
    fn s2_draws_in_sentences() {
        for t in [
            "Wollen wir uns auf Remis einigen?",
            "Ich biete Ihnen Remis an.",
            "Remis?",
            "Shall we call it a draw?",
            "Nimmst du ein Remis an?",
            "Ich wuerde Ihnen gerne ein Remis anbieten, sofern Sie damit einverstanden sind.",
        ] {
            assert_eq!(one(t), Reading::Acts(Request::Offer), "{t}");
        }
        for t in [
            "Ihr Remisangebot nehme ich gerne an.",
            "Einverstanden, Remis.",
            "I accept your draw offer.",
            "OK, Remis.",
        ] {
            assert_eq!(one(t), Reading::Acts(Request::Accept), "{t}");
        }
        assert_eq!(
            asks("Remis angenommen?"),
            (RequestKind::Accept, Missing::Certainty)
        );
        for t in [
            "Kein Remis!",
            "Ich biete kein Remis an.",
            "Dein Remisangebot lehne ich ab.",
        ] {
            assert!(
                matches!(
                    one(t),
                    Reading::Declines {
                        why: Why::Negated,
                        ..
                    }
                ),
                "{t}"
            );
        }
        assert!(matches!(
            one("Meine Partie gegen Müller endete remis."),
            Reading::Declines {
                why: Why::Reported,
                ..
            }
        ));
        assert!(matches!(
            one("Let me draw your attention to move 12."),
            Reading::Declines {
                why: Why::OtherSense,
                ..
            }
        ));
    }

    #[test]
    fn s2_resignation_in_sentences() {
        for t in [
            "Ich gebe die Partie verloren.",
            "Hiermit gebe ich auf.",
            "I resign.",
            "Aufgabe.",
            "Ich gebe auf – Glückwunsch zum verdienten Sieg!",
        ] {
            assert_eq!(one(t), Reading::Acts(Request::Resign), "{t}");
        }
        for t in [
            "Ich gebe nicht auf!",
            "Hast du aufgegeben?",
            "I will not resign.",
        ] {
            assert!(matches!(one(t), Reading::Declines { .. }), "{t}");
        }
        assert_eq!(
            asks("Soll ich aufgeben?"),
            (RequestKind::Resign, Missing::Certainty)
        );
        assert!(matches!(
            one("Das ist eine schwere Aufgabe für mich."),
            Reading::Declines {
                why: Why::OtherSense,
                ..
            }
        ));
    }

    #[test]
    fn s13_announcement_in_sentences() {
        for t in [
            "Für meinen nächsten Zug brauche ich länger als zehn Tage.",
            "I'll need more than ten days for my next move.",
            "Ankündigung gem. §13: mehr als 10 Tage",
            "Ich brauche 14 Tage für diesen Zug.",
        ] {
            assert_eq!(one(t), Reading::Acts(Request::Announce), "{t}");
        }
        assert_eq!(
            asks("Für den nächsten Zug brauche ich mehr Zeit."),
            (RequestKind::Announce, Missing::Days)
        );
    }
}

#[cfg(test)]
mod director_tests {
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
}
