//! What commands print: pretty JSON, and the catalog as people read it.

use anyhow::Result;
use skillhost::Catalog;
use skillhost::text::clean;
use std::io::Write;

/// Prints `value` as indented JSON.
pub fn print_json(value: &impl serde::Serialize) -> Result<()> {
    // Stdout is line-buffered: pretty JSON straight to it is one write per
    // line (27,000 system calls for a 1,000-skill catalog).
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, std::io::stdout().lock());
    serde_json::to_writer_pretty(&mut out, value)?;
    writeln!(out)?;
    out.flush()?;
    Ok(())
}

/// Prints `text`, with a final newline if it has none. Every line is
/// cleaned first ([`clean`]): whatever a skill, a provider or a file put in
/// it, no escape sequence, bidirectional override or invisible character
/// reaches the terminal.
pub fn print_text(text: &str) -> Result<()> {
    let text = terminal_safe(text);
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    if !text.ends_with('\n') {
        writeln!(out)?;
    }
    Ok(())
}

/// Prints `text` and a newline to stderr, each line cleaned as
/// [`print_text`] cleans it: a warning or an error can quote a file, a
/// provider or a server, and none of them may write to the terminal.
pub fn eprint_text(text: &str) {
    eprintln!("{}", terminal_safe(text));
}

/// `text` with each of its lines cleaned, line ends kept.
pub fn terminal_safe(text: &str) -> String {
    text.split('\n').map(clean).collect::<Vec<_>>().join("\n")
}

/// The human-readable catalog: one line per skill, then diagnostics. What
/// skills and providers say is cleaned of control characters (ANSI
/// escapes, bidirectional overrides) before it reaches a terminal.
pub fn render_catalog(catalog: &Catalog) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let width = catalog
        .skills
        .iter()
        .map(|s| s.name().chars().count())
        .max()
        .unwrap_or(0);
    for skill in &catalog.skills {
        let description = skill.description().unwrap_or("(no description)");
        let first_line = clean(description.lines().next().unwrap_or_default());
        let _ = writeln!(out, "{:width$}  {first_line}", clean(skill.name()));
    }
    if !catalog.diagnostics.is_empty() {
        out.push('\n');
        for d in &catalog.diagnostics {
            let _ = writeln!(out, "{}", clean(&d.to_string()));
        }
    }
    let _ = writeln!(
        out,
        "\n{} skill(s){}",
        catalog.skills.len(),
        if catalog.complete {
            ""
        } else {
            " (incomplete: some sources could not be read; showing their last complete view)"
        }
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_output_keeps_its_lines_and_loses_escapes_and_invisible_characters() {
        let text = "/fmt  Formats\u{1b}]0;owned\u{7} code\u{202E}\u{E0068}\nnext\tline\n";
        assert_eq!(
            terminal_safe(text),
            "/fmt  Formats ]0;owned  code \nnext\tline\n"
        );
    }
}
