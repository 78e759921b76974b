//! The letter reader on arbitrary bytes: no panic, no hang, bounded memory; the text it keeps
//! never exceeds the limit.
#![no_main]

use fernzug::letter::{Limits, read_letter, read_letter_with};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = read_letter(data);
    let small = Limits {
        max_text_bytes: 512,
        max_parts: 4,
        max_depth: 2,
    };
    if let Ok(letter) = read_letter_with(data, &small) {
        assert!(letter.text.len() <= small.max_text_bytes);
    }
    // The content reader alone, on the bytes as text (reaches deeper than through MIME).
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = fernzug::letter::content::read_content(text);
        let _ = fernzug::letter::body::strip_quotes(text);
    }
});
