//! Routing decisions, on paths written out by hand.

use super::*;

fn target<'a>(host: &'a str, depth: u32, waiting_on: Option<&'a str>) -> TargetView<'a> {
    TargetView {
        host: Path::new(host),
        depth,
        waiting_on: waiting_on.map(Path::new),
    }
}

#[test]
fn changes_inside_the_depth_are_delivered_and_new_folders_watched() {
    let t = target("/r", 1, None);
    let p = Path::new;
    assert_eq!(
        route(&t, p("/r/pdf"), ChangeKind::Created, || true, || true),
        Route::DeliverAndWatch { remaining: 0 }
    );
    assert_eq!(
        route(&t, p("/r/pdf"), ChangeKind::Removed, || true, || false),
        Route::DeliverAndUnwatch
    );
    assert_eq!(
        route(
            &t,
            p("/r/pdf/SKILL.md"),
            ChangeKind::Modified,
            || true,
            || false
        ),
        Route::Deliver
    );
    assert_eq!(
        route(&t, p("/r/note.md"), ChangeKind::Created, || true, || false),
        Route::Deliver
    );
    assert_eq!(
        route(
            &t,
            p("/r/pdf/refs/a.md"),
            ChangeKind::Modified,
            || true,
            || false
        ),
        Route::Ignore
    );
    assert_eq!(
        route(
            &t,
            p("/elsewhere/x"),
            ChangeKind::Modified,
            || true,
            || false
        ),
        Route::Ignore
    );
    assert_eq!(
        route(&t, p("/r2/x"), ChangeKind::Modified, || true, || false),
        Route::Ignore
    );
}

#[test]
fn the_target_itself_going_away_is_noticed() {
    let t = target("/r", 1, None);
    assert_eq!(
        route(&t, Path::new("/r"), ChangeKind::Removed, || false, || false),
        Route::TargetGone
    );
    assert_eq!(
        route(
            &t,
            Path::new("/r"),
            ChangeKind::Modified,
            || false,
            || false
        ),
        Route::TargetGone
    );
    assert_eq!(
        route(&t, Path::new("/r"), ChangeKind::Modified, || true, || true),
        Route::Deliver
    );
}

#[test]
fn a_missing_target_moves_its_watch_one_segment_at_a_time() {
    let t = target("/a/b/c", 1, Some("/a"));
    assert_eq!(
        route(
            &t,
            Path::new("/a/b"),
            ChangeKind::Created,
            || false,
            || true
        ),
        Route::StepTowards
    );
    assert_eq!(
        route(
            &t,
            Path::new("/a/x"),
            ChangeKind::Created,
            || false,
            || true
        ),
        Route::Ignore
    );
    assert_eq!(
        route(
            &t,
            Path::new("/a/b/c"),
            ChangeKind::Created,
            || false,
            || true
        ),
        Route::Ignore
    );
}

#[test]
fn a_burst_keeps_one_entry_per_path_and_removals_win() {
    let mut pending = Vec::new();
    merge_into(&mut pending, "/r/a".into(), ChangeKind::Created);
    merge_into(&mut pending, "/r/a".into(), ChangeKind::Modified);
    assert_eq!(pending, [("/r/a".into(), ChangeKind::Created)]);
    merge_into(&mut pending, "/r/a".into(), ChangeKind::Removed);
    merge_into(&mut pending, "/r/b".into(), ChangeKind::Modified);
    assert_eq!(
        pending,
        [
            ("/r/a".into(), ChangeKind::Removed),
            ("/r/b".into(), ChangeKind::Modified)
        ]
    );
}
