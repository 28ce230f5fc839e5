//! `contract`: the component exports a version of the provider contract
//! this host runs, and links; `manifest`: what it declares it wants, asked
//! of an instance granted nothing; `denied-imports`: what it imports that
//! the sandbox will deny, and what it tried at run time and was refused.

use crate::report::Check;
use skillhost::sandbox::Manifest;
use skillhost::sandbox::SandboxEngine;
use skillhost::sandbox::describe::{Description, supported_list};
use skillhost::sandbox::manifest::manifest as declared;

/// Judges the component's description.
pub(crate) fn contract(described: &Result<Description, skillhost::Error>) -> Check {
    match described {
        Err(e) => Check::fail("contract", super::said(e)),
        Ok(d) => match &d.link_error {
            Some(why) => Check::fail(
                "contract",
                format!(
                    "exports {} but does not link against this host: {}",
                    d.contract,
                    skillhost::text::shown(why, 600)
                ),
            ),
            None => Check::pass(
                "contract",
                format!(
                    "exports {} (this host runs {})",
                    d.contract,
                    supported_list()
                ),
            ),
        },
    }
}

/// Asks a 0.2.0 component for its manifest, as `inspect` and the trust
/// prompt do: it must answer, within the deadline, without `init` and with
/// nothing granted. A 0.1.0 component has none to give.
/// The check, and the manifest when one came back (the run follows it:
/// a provider that reads no folder is not given the fixture tree).
pub(crate) fn manifest(
    engine: &SandboxEngine,
    bytes: &[u8],
    d: &Description,
) -> (Check, Option<Manifest>) {
    if d.contract.version == "0.1.0" {
        return (
            Check::skip("manifest", "a 0.1.0 component declares no manifest"),
            None,
        );
    }
    let answer = engine
        .load(bytes)
        .map_err(|e| super::said(&e))
        .and_then(|c| {
            declared(engine, &c).map_err(|f| skillhost::text::shown(&f.to_string(), 400))
        });
    match answer {
        Ok(Some(m)) => (Check::pass("manifest", m.lines().join("; ")), Some(m)),
        Ok(None) => (
            Check::fail(
                "manifest",
                format!("{} but no manifest came back", d.contract),
            ),
            None,
        ),
        Err(e) => (
            Check::fail("manifest", format!("asked with nothing granted: {e}")),
            None,
        ),
    }
}

/// Lists the denied imports and the refusals seen; passes either way: the
/// sandbox answering "denied" is the contract working, and a provider
/// that degrades gracefully conforms.
pub(crate) fn denied_imports(d: &Description, refusals: &[String]) -> Check {
    let mut detail = if d.denied.is_empty() {
        "none of its imports is denied".to_string()
    } else {
        // One entry per reason: a component importing all of wasi:sockets
        // is told once why.
        let mut reasons: Vec<(&str, Vec<&str>)> = Vec::new();
        for denied in &d.denied {
            match reasons.iter_mut().find(|(r, _)| *r == denied.reason) {
                Some((_, imports)) => imports.push(&denied.import),
                None => reasons.push((&denied.reason, vec![&denied.import])),
            }
        }
        reasons
            .iter()
            .map(|(reason, imports)| format!("{} ({reason})", imports.join(", ")))
            .collect::<Vec<_>>()
            .join("; ")
    };
    if !refusals.is_empty() {
        detail.push_str("; refused while it ran: ");
        detail.push_str(&crate::report::summarise(refusals));
    }
    Check::pass("denied-imports", detail)
}
