//! How a word of a command line is written back for a shell, in the lines the
//! hints and refusals give to type: a leaf the other rooms of `cli/` share.

/// `word` as it could be typed to a shell: as it is if nothing in it is special,
/// otherwise in single quotes.
pub(super) fn shell_word(word: &[u8]) -> String {
    let text = String::from_utf8_lossy(word);
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./{}=+:,@%^".contains(c);
    if !text.is_empty() && text.chars().all(plain) {
        return text.into_owned();
    }
    format!("'{}'", text.replace('\'', r"'\''"))
}
