//! `fixture-snapshot`: a filesystem provider granted the kit's fixture
//! tree lists exactly its skills, each with its description and at its
//! document, reports every refused file with an error diagnostic, and
//! lists nothing that is not a skill (the nested bundle, the hidden
//! folder, the README).

use crate::fixture::{Fixture, NEVER, REFUSED};
use crate::report::Check;
use skillhost::provider::direct::Observed;
use skillhost::{Location, Severity};

/// Judges a full snapshot of the fixture as it is now.
pub(crate) fn problems(fixture: &Fixture, observed: &Observed) -> Vec<String> {
    let mut problems = Vec::new();
    if !observed.complete {
        problems.push("the snapshot is incomplete".to_string());
    }
    let listed: Vec<_> = super::skills(observed).collect();
    for (name, expected) in fixture.expected() {
        let Some(skill) = listed.iter().find(|s| s.name() == name) else {
            problems.push(format!("{name} ({}) is not listed", expected.document));
            continue;
        };
        if skill.description() != Some(expected.description.as_str()) {
            problems.push(format!(
                "{name}: description {:?}, expected {:?}",
                skill.description(),
                expected.description
            ));
        }
        let document = Location::Path(fixture.path(&expected.document));
        if skill.path != document {
            problems.push(format!(
                "{name}: listed at {}, expected {document}",
                skill.path
            ));
        }
    }
    for skill in &listed {
        if !fixture.expected().contains_key(skill.name()) {
            let what = if NEVER.contains(&skill.name()) {
                "which is not a skill"
            } else {
                "which the fixture does not hold"
            };
            problems.push(format!(
                "{} is listed ({}), {what}",
                skill.name(),
                skill.path
            ));
        }
    }
    for refused in REFUSED {
        let shown = Location::Path(fixture.path(refused)).to_string();
        let diagnosed = observed
            .diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error && d.path == shown);
        if !diagnosed {
            problems.push(format!("no error diagnostic for {refused}"));
        }
    }
    problems
}

/// The `fixture-snapshot` check.
pub(crate) fn check(fixture: &Fixture, observed: &Observed) -> Check {
    let names: Vec<&str> = fixture.expected().keys().map(String::as_str).collect();
    Check::from_problems(
        "fixture-snapshot",
        &problems(fixture, observed),
        format!(
            "lists exactly {} with their descriptions; {} refused files diagnosed; \
             the nested bundle, hidden folder, README and text file are not skills",
            names.join(", "),
            REFUSED.len()
        ),
    )
}
