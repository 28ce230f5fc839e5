//! The one order every door lists skills in — `inject`, `catalog --for
//! model`, the MCP tool, prompts and search, and [`Session`](super::Session):
//! by precedence of where a skill comes from (project, then user, then
//! remote, then bundled), then conditional skills a touched file activated
//! (the skills most about what the agent is doing now), then by usage
//! score (highest first), then by name.
//!
//! Precedence comes first because it is the rule that decides which of two
//! same-named skills wins; a listing that ranked a user's skill above the
//! project's would contradict the catalog it lists. Usage orders skills of
//! one precedence, so what an agent uses stays in view when a listing must
//! be cut; the name makes the order total, so one catalog and one store
//! always give one text.

use crate::model::Skill;
use std::cmp::Ordering;
use std::collections::HashMap;

/// A score per skill name (higher lists first); a skill not in the map
/// scores zero.
pub type Scores = HashMap<String, f64>;

/// What a skill is ranked by, name aside: equal keys share a fate when a
/// listing is cut.
#[derive(Debug, Clone, Copy)]
pub struct Key {
    /// [`Scope::precedence`](crate::model::Scope::precedence) of its scope.
    pub precedence: u8,
    /// A conditional skill (one with `paths`) that is listed, so one a
    /// touched file activated.
    pub activated: bool,
    /// Its usage score.
    pub score: f64,
}

impl Key {
    /// The key of `skill` under `scores`.
    pub fn of(skill: &Skill, scores: &Scores) -> Key {
        Key {
            precedence: skill.scope.precedence(),
            activated: !skill.frontmatter.paths.is_empty(),
            score: scores.get(skill.name()).copied().unwrap_or(0.0),
        }
    }

    /// Whether `self` lists before `other` (`Less`), after, or beside it.
    pub fn order(&self, other: &Key) -> Ordering {
        self.precedence
            .cmp(&other.precedence)
            .then_with(|| other.activated.cmp(&self.activated))
            .then_with(|| other.score.total_cmp(&self.score))
    }

    /// Whether two keys rank alike.
    pub fn same(&self, other: &Key) -> bool {
        self.order(other).is_eq()
    }
}

/// `skills` in rank order.
pub fn ranked<'a>(skills: &[&'a Skill], scores: &Scores) -> Vec<&'a Skill> {
    let mut keyed: Vec<(Key, &'a Skill)> =
        skills.iter().map(|s| (Key::of(s, scores), *s)).collect();
    sort(&mut keyed, |(key, skill)| (key, skill.name()));
    keyed.into_iter().map(|(_, s)| s).collect()
}

/// Sorts `items` into rank order by the key and name `of` gives; a slice
/// already in order (the usual catalog of one scope, unscored) costs one
/// pass.
pub fn sort<T>(items: &mut [T], of: impl Fn(&T) -> (&Key, &str)) {
    let order = |a: &T, b: &T| {
        let ((ka, na), (kb, nb)) = (of(a), of(b));
        ka.order(kb).then_with(|| na.cmp(nb))
    };
    if !items.is_sorted_by(|a, b| order(a, b).is_le()) {
        items.sort_by(order);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Scope;

    fn skill(name: &str, scope: Scope) -> Skill {
        super::super::test_skills::skill(name, "", scope)
    }

    #[test]
    fn an_activated_conditional_skill_leads_its_precedence() {
        let mut react = skill("zz-react", Scope::User);
        react.frontmatter.paths = vec!["src/**/*.tsx".into()];
        let used = skill("aa-used", Scope::User);
        let project = skill("project", Scope::Project);
        let scores: Scores = [("aa-used".to_string(), 5.0)].into_iter().collect();
        let order: Vec<&str> = ranked(&[&used, &react, &project], &scores)
            .iter()
            .map(|s| s.name())
            .collect();
        assert_eq!(order, ["project", "zz-react", "aa-used"]);
    }

    #[test]
    fn precedence_comes_before_usage_and_usage_before_name() {
        let bundled = skill("a-bundled", Scope::Bundled);
        let user_used = skill("z-user", Scope::User);
        let user = skill("b-user", Scope::User);
        let project = skill("y-project", Scope::Project);
        let remote = skill("c-remote", Scope::Remote);
        let scores: Scores = [("z-user".to_string(), 3.0), ("a-bundled".to_string(), 9.0)]
            .into_iter()
            .collect();
        let order: Vec<&str> = ranked(&[&bundled, &user, &remote, &user_used, &project], &scores)
            .iter()
            .map(|s| s.name())
            .collect();
        assert_eq!(
            order,
            ["y-project", "z-user", "b-user", "c-remote", "a-bundled"]
        );
    }
}
