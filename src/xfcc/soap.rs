//! The SOAP 1.1 envelopes of XfccBasic: reading a call, writing an answer. Pure.
//!
//! A call is recognised by the element in the envelope's `Body` (never by `SOAPAction`, which
//! Scid does not send), its parameters by their local names. Answers are written in the exact
//! form ASP.NET gives them, because Scid reads them with regular expressions before it parses
//! them: the operation's response element with a default `xmlns="…"` and nothing after it,
//! `<GetMyGamesResult>` and `<MakeAMoveResult>` unprefixed, faults under the `soap:` prefix
//! (docs/xfcc.md).
//!
//! ```
//! use fernzug::xfcc::soap::{parse, Call};
//! let body = br#"<?xml version="1.0" encoding="utf-8"?>
//! <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>
//! <GetMyGames xmlns="http://www.bennedik.com/webservices/XfccBasic"><username>anna@example.org</username><password>pw</password></GetMyGames>
//! </soap:Body></soap:Envelope>"#;
//! match parse(body).unwrap() {
//!     Call::GetMyGames { username, .. } => assert_eq!(username, "anna@example.org"),
//!     other => panic!("{other:?}"),
//! }
//! ```

use std::fmt::Write as _;

use quick_xml::events::Event;
use quick_xml::reader::Reader;

use super::values::{Code, XfccGame};

/// The namespace of XfccBasic.
pub const NS: &str = "http://www.bennedik.com/webservices/XfccBasic";
/// The namespace of a SOAP 1.1 envelope.
pub const ENVELOPE_NS: &str = "http://schemas.xmlsoap.org/soap/envelope/";

/// A call of the service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Call {
    /// `GetMyGames(username, password)`.
    GetMyGames { username: String, password: String },
    /// `MakeAMove(…)`.
    MakeAMove(MoveCall),
}

/// The parameters of `MakeAMove`, in the WSDL's order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MoveCall {
    pub username: String,
    pub password: String,
    /// `gameId`, as written (a game id the relay never gave is `InvalidGameID`, not a fault).
    pub game_id: String,
    pub resign: bool,
    pub accept_draw: bool,
    /// `movecount`: the full-move number of the move sent; `None` when absent or not a number.
    pub movecount: Option<u32>,
    /// `myMove`: SAN with English letters.
    pub my_move: String,
    pub offer_draw: bool,
    pub claim_draw: bool,
    /// `myMessage`: free text to the partner.
    pub my_message: String,
}

/// Why a request is not a call of the service (answered with a SOAP fault).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SoapError {
    #[error("the request is not well-formed XML: {0}")]
    NotXml(String),
    #[error("the request has no SOAP 1.1 Envelope with a Body")]
    NoBody,
    #[error("XfccBasic has no operation `{0}` here (GetMyGames, MakeAMove)")]
    UnknownOperation(String),
    #[error("`{name}` must be {expected}, not {value:?}")]
    BadValue {
        name: &'static str,
        expected: &'static str,
        value: String,
    },
}

/// Reads one request body.
pub fn parse(body: &[u8]) -> Result<Call, SoapError> {
    let mut reader = Reader::from_reader(body);
    reader.config_mut().trim_text(false);
    // Path of local names from the root; the operation is the first element inside `Body`.
    let mut path: Vec<String> = Vec::new();
    let mut operation: Option<String> = None;
    let mut fields: Vec<(String, String)> = Vec::new();
    let mut text = String::new();
    let mut in_envelope = false;
    let mut buf = Vec::new();
    loop {
        let event = reader
            .read_event_into(&mut buf)
            .map_err(|e| SoapError::NotXml(e.to_string()))?;
        match event {
            Event::Start(e) => {
                let name = local(e.name().as_ref());
                if path.is_empty() {
                    in_envelope = name == "Envelope";
                }
                if in_envelope && path.len() == 2 && path[1] == "Body" && operation.is_none() {
                    operation = Some(name.clone());
                }
                path.push(name);
                text.clear();
            }
            Event::Empty(e) => {
                let name = local(e.name().as_ref());
                if in_envelope && path.len() == 2 && path[1] == "Body" && operation.is_none() {
                    operation = Some(name);
                } else if path.len() == 3 && operation.is_some() {
                    fields.push((name, String::new()));
                }
            }
            Event::Text(t) => text.push_str(&t.xml10_content()),
            Event::GeneralRef(r) => {
                let name = r.into_inner();
                text.push_str(
                    &entity(&name)
                        .ok_or_else(|| SoapError::NotXml(format!("unknown entity &{name};")))?,
                );
            }
            Event::CData(c) => text.push_str(&c.into_inner()),
            Event::End(_) => {
                // A parameter: an element directly inside the operation.
                if path.len() == 4
                    && operation.is_some()
                    && let Some(name) = path.last()
                {
                    fields.push((name.clone(), std::mem::take(&mut text)));
                }
                path.pop();
            }
            Event::Eof => break,
            _ => {}
        }
        buf.clear();
    }
    let Some(op) = operation else {
        return Err(SoapError::NoBody);
    };
    let get = |name: &str| -> String {
        fields
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    match op.as_str() {
        "GetMyGames" => Ok(Call::GetMyGames {
            username: get("username").trim().to_string(),
            password: get("password"),
        }),
        "MakeAMove" => Ok(Call::MakeAMove(MoveCall {
            username: get("username").trim().to_string(),
            password: get("password"),
            game_id: get("gameId").trim().to_string(),
            resign: boolean("resign", &get("resign"))?,
            accept_draw: boolean("acceptDraw", &get("acceptDraw"))?,
            movecount: get("movecount").trim().parse().ok(),
            my_move: get("myMove").trim().to_string(),
            offer_draw: boolean("offerDraw", &get("offerDraw"))?,
            claim_draw: boolean("claimDraw", &get("claimDraw"))?,
            my_message: get("myMessage"),
        })),
        other => Err(SoapError::UnknownOperation(other.to_string())),
    }
}

/// The local part of a qualified XML name.
fn local(qname: &str) -> String {
    match qname.rsplit_once(':') {
        Some((_, l)) => l.to_string(),
        None => qname.to_string(),
    }
}

/// The text of a predefined or numeric character reference.
fn entity(name: &str) -> Option<String> {
    let c = match name {
        "lt" => '<',
        "gt" => '>',
        "amp" => '&',
        "apos" => '\'',
        "quot" => '"',
        _ => {
            let n = name.strip_prefix('#')?;
            let code = match n.strip_prefix(['x', 'X']) {
                Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                None => n.parse().ok()?,
            };
            char::from_u32(code)?
        }
    };
    Some(c.to_string())
}

/// An xs:boolean: `true`/`false` (Lucas Chess, zeep, suds) or `1`/`0` (Scid); absent is false.
fn boolean(name: &'static str, v: &str) -> Result<bool, SoapError> {
    match v.trim() {
        "" | "0" | "false" => Ok(false),
        "1" | "true" => Ok(true),
        other => Err(SoapError::BadValue {
            name,
            expected: "an xs:boolean (true, false, 1 or 0)",
            value: other.to_string(),
        }),
    }
}

/// `s` with the five XML special characters escaped.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Characters XML 1.0 cannot carry at all.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => {}
            c => out.push(c),
        }
    }
    out
}

const HEAD: &str = "<?xml version=\"1.0\" encoding=\"utf-8\"?><soap:Envelope \
xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\" \
xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" \
xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\"><soap:Body>";
const TAIL: &str = "</soap:Body></soap:Envelope>";

/// The answer to `GetMyGames`.
pub fn games_response(games: &[XfccGame]) -> String {
    let mut out = String::with_capacity(256 + games.len() * 700);
    out.push_str(HEAD);
    let _ = write!(out, "<GetMyGamesResponse xmlns=\"{NS}\"><GetMyGamesResult>");
    for g in games {
        g.write_xml(&mut out);
    }
    out.push_str("</GetMyGamesResult></GetMyGamesResponse>");
    out.push_str(TAIL);
    out
}

/// The answer to `MakeAMove`.
pub fn move_response(code: Code) -> String {
    format!(
        "{HEAD}<MakeAMoveResponse xmlns=\"{NS}\"><MakeAMoveResult>{}</MakeAMoveResult>\
         </MakeAMoveResponse>{TAIL}",
        code.name()
    )
}

/// A SOAP 1.1 fault: `client` when the request is at fault (`soap:Client`), else `soap:Server`.
/// `faultstring` is what the clients look for (`AuthenticationFailed`).
pub fn fault(client: bool, faultstring: &str) -> String {
    let code = if client { "soap:Client" } else { "soap:Server" };
    format!(
        "{HEAD}<soap:Fault><faultcode>{code}</faultcode><faultstring>{}</faultstring>\
         </soap:Fault>{TAIL}",
        escape(faultstring)
    )
}

impl XfccGame {
    /// Writes `<XfccGame>…</XfccGame>`, the elements in the WSDL's order.
    pub fn write_xml(&self, out: &mut String) {
        let e = escape;
        let b = |v: bool| if v { "true" } else { "false" };
        let _ = write!(
            out,
            "<XfccGame><id>{}</id><white>{}</white><black>{}</black><event>{}</event>\
             <site>{}</site><myTurn>{}</myTurn><hasWhite>{}</hasWhite>\
             <daysPlayer>{}</daysPlayer><hoursPlayer>{}</hoursPlayer>\
             <minutesPlayer>{}</minutesPlayer><daysOpponent>{}</daysOpponent>\
             <hoursOpponent>{}</hoursOpponent><minutesOpponent>{}</minutesOpponent>\
             <moves>{}</moves><drawOffered>{}</drawOffered><result>{}</result>\
             <message>{}</message><serverInfo>{}</serverInfo><eventDate>{}</eventDate>\
             <setup>{}</setup><fen>{}</fen><timeControl>{}</timeControl></XfccGame>",
            self.id,
            e(&self.white),
            e(&self.black),
            e(&self.event),
            e(&self.site),
            b(self.my_turn),
            b(self.has_white),
            self.player.0,
            self.player.1,
            self.player.2,
            self.opponent.0,
            self.opponent.1,
            self.opponent.2,
            e(&self.moves),
            b(self.draw_offered),
            self.result.name(),
            e(&self.message),
            e(&self.server_info),
            e(&self.event_date),
            b(self.setup),
            e(&self.fen),
            e(&self.time_control),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scid's request, verbatim: tab indentation, no SOAPAction, flags as 0/1 (docs/xfcc.md).
    const SCID_MOVE: &str = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n\t<soap:Envelope xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\" xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\">\n\t<soap:Body>\n\t<MakeAMove xmlns=\"http://www.bennedik.com/webservices/XfccBasic\"><username>U</username><password>P</password><gameId>7</gameId><resign>0</resign><acceptDraw>0</acceptDraw><movecount>1</movecount><myMove>e4</myMove><offerDraw>1</offerDraw><claimDraw>0</claimDraw><myMessage>Gr&#252;&#223;e &amp; viel Gl&#xFC;ck</myMessage></MakeAMove></soap:Body>\n\t</soap:Envelope>";

    #[test]
    fn scid_make_a_move_is_read() {
        let Call::MakeAMove(m) = parse(SCID_MOVE.as_bytes()).unwrap() else {
            panic!("not MakeAMove")
        };
        assert_eq!(m.username, "U");
        assert_eq!(m.password, "P");
        assert_eq!(m.game_id, "7");
        assert_eq!(m.movecount, Some(1));
        assert_eq!(m.my_move, "e4");
        assert!(m.offer_draw && !m.resign && !m.accept_draw && !m.claim_draw);
        assert_eq!(m.my_message, "Grüße & viel Glück");
    }

    #[test]
    fn prefixed_children_and_boolean_words_are_read() {
        // scidCommunity's LSS client prefixes every element; suds and zeep write true/false.
        let body = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><ns:MakeAMove xmlns:ns="http://www.bennedik.com/webservices/XfccBasic"><ns:username>a@b.c</ns:username><ns:password>x</ns:password><ns:gameId>100002</ns:gameId><ns:resign>true</ns:resign><ns:acceptDraw>false</ns:acceptDraw><ns:movecount>12</ns:movecount><ns:myMove/><ns:offerDraw>false</ns:offerDraw><ns:claimDraw>false</ns:claimDraw><ns:myMessage/></ns:MakeAMove></s:Body></s:Envelope>"#;
        let Call::MakeAMove(m) = parse(body.as_bytes()).unwrap() else {
            panic!()
        };
        assert!(m.resign);
        assert_eq!(m.game_id, "100002");
        assert_eq!(m.movecount, Some(12));
        assert_eq!(m.my_move, "");
    }

    #[test]
    fn what_is_not_a_call_is_named() {
        assert!(matches!(parse(b"<a><b></a>"), Err(SoapError::NotXml(_))));
        assert_eq!(parse(b"<x/>"), Err(SoapError::NoBody));
        let two = SCID_MOVE.replace("MakeAMove", "MakeAMove2");
        assert_eq!(
            parse(two.as_bytes()),
            Err(SoapError::UnknownOperation("MakeAMove2".into()))
        );
        let bad = SCID_MOVE.replace("<resign>0<", "<resign>yes<");
        assert!(matches!(
            parse(bad.as_bytes()),
            Err(SoapError::BadValue { name: "resign", .. })
        ));
    }

    #[test]
    fn answers_have_the_form_scid_matches() {
        let a = move_response(Code::NotYourTurn);
        // Scid: `regsub .*<MakeAMoveResponse.*\">` then `<MakeAMoveResult>`.
        assert!(a.contains(&format!(
            "<MakeAMoveResponse xmlns=\"{NS}\"><MakeAMoveResult>NotYourTurn</MakeAMoveResult>"
        )));
        let g = games_response(&[]);
        assert!(g.contains(&format!(
            "<GetMyGamesResponse xmlns=\"{NS}\"><GetMyGamesResult></GetMyGamesResult>"
        )));
        let f = fault(true, "AuthenticationFailed");
        assert!(f.contains("<soap:Fault><faultcode>soap:Client</faultcode><faultstring>AuthenticationFailed</faultstring>"));
        assert_eq!(escape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    }
}
