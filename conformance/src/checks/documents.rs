//! `load`: every listed skill loads a document of that name with the
//! frontmatter it was listed with; `resources`:
//! every listed file of a skill reads back with its size and digest (and,
//! on the fixture, the nested bundle is a file of the outer skill).

use crate::fixture::NESTED_RESOURCE;
use crate::report::Check;
use crate::session::Session;
use skillhost::error::ProviderErrorKind;
use skillhost::{Error, Skill};
use skillhost_skill::digest;

/// Loads every listed skill.
pub(crate) fn load(session: &mut Session, listed: &[Skill]) -> Check {
    if listed.is_empty() {
        return Check::skip("load", "it lists no skills to load");
    }
    let mut problems = Vec::new();
    for skill in listed {
        let name = skill.name();
        match session.call("load", format!("load({name:?})"), |i| i.load(name)) {
            Ok(doc) if doc.skill.name() != name => problems.push(format!(
                "load({name:?}) returned a document named {:?}",
                doc.skill.name()
            )),
            Ok(doc) if doc.skill.frontmatter != skill.frontmatter => problems.push(format!(
                "load({name:?}) returned other frontmatter than it listed"
            )),
            Ok(doc) if doc.skill.frontmatter_json() != skill.frontmatter_json() => problems.push(
                format!("load({name:?}) returned other frontmatter JSON than it listed"),
            ),
            Ok(_) => {}
            Err(e) => problems.push(format!("load({name:?}): {}", super::said(&e))),
        }
    }
    Check::from_problems(
        "load",
        &problems,
        format!(
            "{} documents loaded, each named and with the frontmatter as listed",
            listed.len()
        ),
    )
}

/// Lists and reads every skill's files.
pub(crate) fn resources(session: &mut Session, names: &[String], fixture: bool) -> Check {
    if names.is_empty() {
        return Check::skip("resources", "it lists no skills");
    }
    let mut problems = Vec::new();
    let (mut unsupported, mut files) = (0, 0);
    for name in names {
        let listed = session.call("list-resources", format!("list-resources({name:?})"), |i| {
            i.list_resources(name)
        });
        let list = match listed {
            Ok(list) => list,
            Err(Error::Provider {
                kind: ProviderErrorKind::Unsupported,
                ..
            }) => {
                unsupported += 1;
                continue;
            }
            Err(e) => {
                problems.push(format!("list-resources({name:?}): {}", super::said(&e)));
                continue;
            }
        };
        if fixture && name == NESTED_RESOURCE.0 && !list.iter().any(|r| r.path == NESTED_RESOURCE.1)
        {
            problems.push(format!(
                "list-resources({name:?}) does not list {}, the nested bundle's document",
                NESTED_RESOURCE.1
            ));
        }
        for resource in list {
            files += 1;
            let what = format!("read-resource({name:?}, {:?})", resource.path);
            match session.call("read-resource", what.clone(), |i| {
                i.read_resource(name, &resource.path)
            }) {
                Ok(bytes) if bytes.len() as u64 != resource.size => problems.push(format!(
                    "{what}: {} bytes, listed as {}",
                    bytes.len(),
                    resource.size
                )),
                Ok(bytes) if !digest::matches(&bytes, &resource.digest) => problems.push(format!(
                    "{what}: the bytes hash to {}, listed as {}",
                    digest::sha256(&bytes),
                    resource.digest
                )),
                Ok(bytes) => {
                    if let Some(problem) = range_problem(session, name, &resource.path, &bytes) {
                        problems.push(problem);
                    }
                }
                Err(e) => problems.push(format!("{what}: {}", super::said(&e))),
            }
        }
    }
    if problems.is_empty() && unsupported == names.len() {
        return Check::skip(
            "resources",
            "it does not list resources (list-resources answers unsupported)",
        );
    }
    Check::from_problems(
        "resources",
        &problems,
        format!(
            "{files} files of {} skills read back with their listed size and digest, and in part by range",
            names.len() - unsupported
        ),
    )
}

/// Reads the middle third of a file and a range past its end by
/// `read-resource-range`, which must give exactly those bytes of `whole`.
fn range_problem(session: &mut Session, name: &str, path: &str, whole: &[u8]) -> Option<String> {
    let size = whole.len() as u64;
    let (offset, len) = (size / 3, size / 3 + 1);
    let what = format!("read-resource-range({name:?}, {path:?}, {offset}, {len})");
    let part = session.call("read-resource-range", what.clone(), |i| {
        i.read_resource_range(name, path, offset, len)
    });
    let expected = skillhost_skill::reads::range_within(whole.len(), offset, len);
    match part {
        Ok(bytes) if bytes != whole[expected.clone()] => {
            return Some(format!(
                "{what}: {} bytes that are not bytes {expected:?} of the file",
                bytes.len()
            ));
        }
        Ok(_) => {}
        Err(e) => return Some(format!("{what}: {}", super::said(&e))),
    }
    let past = format!("read-resource-range({name:?}, {path:?}, {}, 16)", size + 1);
    match session.call("read-resource-range", past.clone(), |i| {
        i.read_resource_range(name, path, size + 1, 16)
    }) {
        Ok(bytes) if !bytes.is_empty() => Some(format!(
            "{past}: {} bytes past the end of the file",
            bytes.len()
        )),
        Ok(_) => None,
        Err(e) => Some(format!("{past}: {}", super::said(&e))),
    }
}
