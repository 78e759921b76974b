//! End-to-end: the board as a picture (docs/contract.md "Pictures"). The HTML part of the mails
//! Bert receives through the real stack — his `start` mail (the start position) and the `move` mail
//! after Anna's 1. e4 — is rendered by a real browser (headless Chromium, `chromium` from Debian;
//! scripts/test installs it) to a PNG, and the PNG is read back: the board is found by its square
//! colours, seen from Black's side, and the squares of the moved pawn differ from the start
//! position's (the pawn gone from e2, standing on e4, both squares marked) while the others stay.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::common::{Duel, header, wait_for};

pub(crate) const LIGHT: [u8; 3] = [0xf0, 0xd9, 0xb5];
pub(crate) const DARK: [u8; 3] = [0xb5, 0x88, 0x63];
pub(crate) const LIGHT_MOVED: [u8; 3] = [0xcd, 0xd2, 0x6a];
pub(crate) const DARK_MOVED: [u8; 3] = [0xaa, 0xa2, 0x3a];

/// Debian's Chromium, where it is installed.
pub(crate) fn chromium() -> Option<PathBuf> {
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
}

/// The HTML part of `raw`, decoded.
fn html_part(raw: &[u8]) -> String {
    let m = mail_parser::MessageParser::default()
        .parse(raw)
        .expect("the mail parses");
    assert_eq!(
        m.html_body_count(),
        1,
        "one HTML part: {}",
        String::from_utf8_lossy(raw)
    );
    m.body_html(0).expect("an HTML part").into_owned()
}

/// An RGB screenshot: width, height, pixels.
pub(crate) struct Shot {
    pub(crate) width: usize,
    pub(crate) height: usize,
    rgb: Vec<[u8; 3]>,
}

impl Shot {
    pub(crate) fn at(&self, x: usize, y: usize) -> [u8; 3] {
        self.rgb[y * self.width + x]
    }
}

/// Renders `html` in headless Chromium to a PNG in `dir` and reads it back.
fn screenshot(chromium: &Path, dir: &Path, name: &str, html: &str) -> Shot {
    let page = dir.join(format!("{name}.html"));
    std::fs::write(&page, html).unwrap();
    let url = format!("file://{}", page.display());
    screenshot_url(chromium, dir, name, &url, (900, 2400))
}

/// Renders the page at `url` in headless Chromium, in a window of `(width, height)` CSS pixels,
/// to `dir/NAME.png` and reads it back.
pub(crate) fn screenshot_url(
    chromium: &Path,
    dir: &Path,
    name: &str,
    url: &str,
    (width, height): (u32, u32),
) -> Shot {
    let png = dir.join(format!("{name}.png"));
    let profile = dir.join(format!("{name}-profile"));
    let out = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
            &format!("--window-size={width},{height}"),
            &format!("--user-data-dir={}", profile.display()),
            &format!("--screenshot={}", png.display()),
            url,
        ])
        .output()
        .expect("chromium runs");
    assert!(
        png.exists(),
        "chromium wrote no screenshot: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&png).unwrap()));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut buf).expect("a frame");
    let channels = match info.color_type {
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        other => panic!("unexpected PNG colour type {other:?}"),
    };
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    let rgb = buf[..info.buffer_size()]
        .chunks_exact(channels)
        .map(|p| [p[0], p[1], p[2]])
        .collect();
    Shot {
        width: info.width as usize,
        height: info.height as usize,
        rgb,
    }
}

/// The board in a screenshot: its left and top edge and the size of a square, found as the box
/// of every pixel in one of the four square colours.
pub(crate) struct Board {
    left: usize,
    top: usize,
    square: usize,
}

pub(crate) fn find_board(shot: &Shot) -> Board {
    let colours = [LIGHT, DARK, LIGHT_MOVED, DARK_MOVED];
    let (mut x0, mut y0, mut x1, mut y1) = (usize::MAX, usize::MAX, 0, 0);
    for y in 0..shot.height {
        for x in 0..shot.width {
            if colours.contains(&shot.at(x, y)) {
                x0 = x0.min(x);
                y0 = y0.min(y);
                x1 = x1.max(x);
                y1 = y1.max(y);
            }
        }
    }
    assert!(x0 < x1 && y0 < y1, "no board in the screenshot");
    let (w, h) = (x1 + 1 - x0, y1 + 1 - y0);
    assert!(w.abs_diff(h) <= 2, "the board is square: {w} × {h}");
    Board {
        left: x0,
        top: y0,
        square: w / 8,
    }
}

/// What a square shows, seen from Black's side (h1 top left): its background colour (a corner)
/// and how many of its pixels are not that colour (a figure).
fn square(shot: &Shot, b: &Board, name: &str) -> ([u8; 3], usize) {
    square_seen(shot, b, name, false)
}

/// [`square`] seen from White's side (`from_white`: a8 top left) or Black's (h1 top left).
pub(crate) fn square_seen(
    shot: &Shot,
    b: &Board,
    name: &str,
    from_white: bool,
) -> ([u8; 3], usize) {
    let file = usize::from(name.as_bytes()[0] - b'a');
    let rank = usize::from(name.as_bytes()[1] - b'1');
    // Black's view: files h..a from left to right, ranks 1..8 from top to bottom.
    let (col, row) = if from_white {
        (file, 7 - rank)
    } else {
        (7 - file, rank)
    };
    let (x0, y0) = (b.left + col * b.square, b.top + row * b.square);
    let background = shot.at(x0 + 2, y0 + 2);
    let ink = (2..b.square - 2)
        .flat_map(|dy| (2..b.square - 2).map(move |dx| (dx, dy)))
        .filter(|&(dx, dy)| shot.at(x0 + dx, y0 + dy) != background)
        .count();
    (background, ink)
}

#[test]
fn the_html_part_of_a_move_mail_shows_the_board_in_a_real_browser() {
    // scripts/test installs Chromium; without it the picture cannot be looked at.
    let chromium =
        chromium().expect("no chromium (apt-get install chromium): scripts/test installs it");
    let d = Duel::new(
        "pictures",
        "fax",
        ("Anna Adler", Some("de")),
        ("Bert Berger", Some("en")),
    );
    d.play(&d.anna, "1. e4", "2026-12-01T10:00:00+01:00");
    let mails = wait_for(&d.bert, 2, Duration::from_secs(20));
    let of = |kind: &str| {
        mails
            .iter()
            .find(|m| header(m, "X-Fernzug-Kind").as_deref() == Some(kind))
            .unwrap_or_else(|| panic!("Bert has a {kind} mail"))
            .clone()
    };
    let start = html_part(&of("start"));
    let moved = html_part(&of("move"));
    // The same text in both parts: the HTML shows the text part's sentences and FEN.
    let text = crate::common::body_text(&of("move"));
    let fen_line = text
        .lines()
        .find(|l| l.contains("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"))
        .expect("the FEN in the text");
    assert!(moved.contains(fen_line.trim()), "{moved}");

    let dir = d.relay.dir.join("pictures");
    std::fs::create_dir_all(&dir).unwrap();
    let before = screenshot(&chromium, &dir, "start", &start);
    let after = screenshot(&chromium, &dir, "move", &moved);
    let (bb, ba) = (find_board(&before), find_board(&after));
    assert!(bb.square >= 30, "squares of {} px", bb.square);

    // Seen from Black's side: h1 (a light square) in the top left corner, a8 in the bottom right.
    assert_eq!(square(&before, &bb, "h1").0, LIGHT);
    assert_eq!(square(&before, &bb, "a1").0, DARK);
    // The moved pawn: on e2 before, on e4 after; both squares marked as the last move.
    let (e2_before, e2_after) = (square(&before, &bb, "e2"), square(&after, &ba, "e2"));
    let (e4_before, e4_after) = (square(&before, &bb, "e4"), square(&after, &ba, "e4"));
    assert_eq!((e2_before.0, e4_before.0), (LIGHT, LIGHT));
    assert_eq!((e2_after.0, e4_after.0), (LIGHT_MOVED, LIGHT_MOVED));
    assert!(e2_before.1 > 20, "a pawn on e2 at the start: {e2_before:?}");
    assert_eq!(e2_after.1, 0, "e2 is empty after 1. e4: {e2_after:?}");
    assert_eq!(e4_before.1, 0, "e4 is empty at the start: {e4_before:?}");
    assert!(e4_after.1 > 20, "the pawn on e4: {e4_after:?}");
    // Every other square shows what it showed before.
    for f in "abcdefgh".chars() {
        for r in "12345678".chars() {
            let sq = format!("{f}{r}");
            if sq == "e2" || sq == "e4" {
                continue;
            }
            let (x, y) = (square(&before, &bb, &sq), square(&after, &ba, &sq));
            assert_eq!(x.0, y.0, "{sq}: the same colour");
            assert!(
                x.1.abs_diff(y.1) <= 4,
                "{sq}: the same figure ({x:?} / {y:?})"
            );
        }
    }
}
