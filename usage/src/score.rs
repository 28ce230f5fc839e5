//! The usage score of a skill: `ln(1 + count) × 0.5^(hours since last use
//! / 168)` — logarithmic in how often it was used, halving with every week
//! since it was last used. A pinned skill scores at least
//! [`PINNED_MIN_SCORE`]. The listing shortens the least-scored skills
//! first when it must cut ([`render_ranked`](skillhost::session::render::render_ranked)).

use super::clock::hours_between;
use super::store::SkillUsage;
use skillhost::model::Catalog;
use skillhost::session::render::Scores;
use std::collections::BTreeMap;
use std::time::SystemTime;

/// Hours after which a use counts half as much (one week).
pub const HALF_LIFE_HOURS: f64 = 168.0;
/// The lowest score of a skill marked `pinned: true`.
pub const PINNED_MIN_SCORE: f64 = 0.8;
/// The age assumed for uses whose time is unknown.
const UNKNOWN_AGE_HOURS: f64 = 0.1;

/// `ln(1 + count) × 0.5^(age_hours / 168)`, the age counted from
/// `last_used` to `now` (never negative).
pub fn score(count: u64, last_used: Option<SystemTime>, now: SystemTime) -> f64 {
    if count == 0 {
        return 0.0;
    }
    let age = last_used.map_or(UNKNOWN_AGE_HOURS, |at| hours_between(at, now));
    (1.0 + count as f64).ln() * 0.5f64.powf(age / HALF_LIFE_HOURS)
}

/// A skill's score from what the store knows of it, with the pinned floor.
pub fn skill_score(usage: Option<&SkillUsage>, pinned: bool, now: SystemTime) -> f64 {
    let raw = usage.map_or(0.0, |u| score(u.count, u.last_used, now));
    if pinned {
        raw.max(PINNED_MIN_SCORE)
    } else {
        raw
    }
}

/// The score of every skill in `catalog`, by name, for the listing.
pub fn catalog_scores(
    catalog: &Catalog,
    usage: &BTreeMap<String, SkillUsage>,
    now: SystemTime,
) -> Scores {
    catalog
        .skills
        .iter()
        .map(|s| {
            let score = skill_score(usage.get(s.name()), s.frontmatter.pinned, now);
            (s.name().to_string(), score)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::days;
    use std::time::{Duration, UNIX_EPOCH};

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn three_uses_two_weeks_ago_score_ln_4_times_a_quarter() {
        let now = UNIX_EPOCH + days(400.0);
        let used = now - days(14.0);
        assert!(close(score(3, Some(used), now), 4f64.ln() * 0.25));
    }

    #[test]
    fn a_use_just_now_scores_its_logarithm_and_halves_each_week() {
        let now = UNIX_EPOCH + days(400.0);
        assert!(close(score(1, Some(now), now), 2f64.ln()));
        assert!(close(score(1, Some(now - days(7.0)), now), 2f64.ln() / 2.0));
        assert!(close(
            score(9, Some(now - Duration::from_secs(84 * 3600)), now),
            10f64.ln() * 0.5f64.sqrt()
        ));
    }

    #[test]
    fn no_use_scores_zero_and_a_future_use_does_not_score_above_now() {
        let now = UNIX_EPOCH + days(400.0);
        assert_eq!(score(0, Some(now), now), 0.0);
        assert_eq!(score(0, None, now), 0.0);
        assert!(close(score(3, Some(now + days(5.0)), now), 4f64.ln()));
    }

    #[test]
    fn a_pinned_skill_scores_at_least_the_floor_but_keeps_a_higher_score() {
        let now = UNIX_EPOCH + days(400.0);
        assert_eq!(skill_score(None, true, now), PINNED_MIN_SCORE);
        assert_eq!(skill_score(None, false, now), 0.0);
        let busy = SkillUsage {
            count: 20,
            last_used: Some(now),
            ..SkillUsage::default()
        };
        assert!(close(skill_score(Some(&busy), true, now), 21f64.ln()));
    }
}
