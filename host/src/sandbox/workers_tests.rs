use super::*;
use std::sync::atomic::AtomicUsize;
use std::sync::mpsc;
use std::time::Duration;

#[test]
fn a_job_no_worker_took_runs_on_its_callers_thread() {
    let workers = Workers::new(0);
    let here = std::thread::current().id();
    let pending = workers.submit(move || std::thread::current().id());
    assert_eq!(pending.join(), here);
    assert_eq!(workers.threads(), 0);
    assert!(!workers.spawn(|| {}), "a pool of no threads takes nothing");
}

#[test]
fn jobs_run_on_named_workers_and_threads_stay_within_the_bound() {
    let workers = Workers::new(2);
    let (release, gate) = mpsc::channel::<()>();
    let gate = Arc::new(Mutex::new(gate));
    let (started, running) = mpsc::channel::<()>();
    // Two jobs that hold their workers until released.
    let held: Vec<_> = (0..2)
        .map(|_| {
            let (gate, started) = (gate.clone(), started.clone());
            workers.submit(move || {
                let _ = started.send(());
                let _ = lock(&gate).recv_timeout(Duration::from_secs(30));
                std::thread::current().name().map(str::to_string)
            })
        })
        .collect();
    for _ in 0..2 {
        running
            .recv_timeout(Duration::from_secs(30))
            .expect("both held jobs start on workers");
    }
    // More jobs than threads: none starts a third thread.
    let more: Vec<_> = (0..5).map(|i| workers.submit(move || i * 2)).collect();
    assert!(workers.threads() <= 2);
    assert_eq!(workers.busy(), 7, "two running, five queued");
    for _ in 0..2 {
        release.send(()).expect("the held jobs wait for this");
    }
    let names: Vec<_> = held.into_iter().map(Pending::join).collect();
    for name in names.into_iter().flatten() {
        assert!(name.starts_with("skillhost-worker-"), "{name}");
    }
    let results: Vec<_> = more.into_iter().map(Pending::join).collect();
    assert_eq!(results, [0, 2, 4, 6, 8]);
    assert!(workers.threads() <= 2);
    // What is left queued (jobs their callers ran) drains: the pool idles.
    let until = std::time::Instant::now() + Duration::from_secs(30);
    while workers.busy() > 0 && std::time::Instant::now() < until {
        std::thread::sleep(Duration::from_millis(2));
    }
    assert_eq!(workers.busy(), 0);
}

#[test]
fn a_busy_pool_never_keeps_a_caller_waiting_for_an_unstarted_job() {
    let workers = Workers::new(1);
    let (release, gate) = mpsc::channel::<()>();
    let blocker = workers.submit(move || {
        let _ = gate.recv_timeout(Duration::from_secs(30));
    });
    // The only worker is held: this job is queued and never started, so
    // its caller runs it at once instead of waiting for the blocker.
    let here = std::thread::current().id();
    let queued = workers.submit(move || std::thread::current().id());
    assert_eq!(queued.join(), here);
    release.send(()).expect("the blocker waits for this");
    blocker.join();
}

#[test]
fn a_full_queue_refuses_jobs_that_nobody_waits_for() {
    let workers = Workers::new(1);
    let (release, gate) = mpsc::channel::<()>();
    let blocker = workers.submit(move || {
        let _ = gate.recv_timeout(Duration::from_secs(30));
    });
    let ran = Arc::new(AtomicUsize::new(0));
    let taken = (0..100)
        .filter(|_| {
            let ran = ran.clone();
            workers.spawn(move || {
                ran.fetch_add(1, Ordering::Relaxed);
            })
        })
        .count();
    assert!(
        taken <= QUEUED_PER_WORKER,
        "{taken} queued behind one held worker"
    );
    release.send(()).expect("the blocker waits for this");
    blocker.join();
    // What was taken runs; a submitted job after them proves they are done.
    workers.submit(|| ()).join();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while ran.load(Ordering::Relaxed) < taken && std::time::Instant::now() < deadline {
        std::thread::yield_now();
    }
    assert_eq!(ran.load(Ordering::Relaxed), taken);
}

#[test]
fn a_panicking_job_panics_its_caller_and_the_pool_goes_on() {
    let workers = Workers::new(1);
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let pending = workers.submit(|| -> u8 { panic!("a host bug") });
        // Let a worker take it, so the panic crosses threads.
        std::thread::sleep(Duration::from_millis(20));
        pending.join()
    }));
    assert!(panicked.is_err());
    assert_eq!(workers.submit(|| 7).join(), 7);
}

#[test]
fn speedups_switch_off_and_on() {
    let workers = Workers::new(2);
    assert_eq!(workers.speedups(), Speedups::ALL);
    workers.set_speedups(Speedups {
        read_ahead: false,
        ..Speedups::ALL
    });
    assert!(!workers.speedups().read_ahead && workers.speedups().parallel_reads);
    workers.set_speedups(Speedups::NONE);
    assert_eq!(workers.clone().speedups(), Speedups::NONE);
}

#[test]
fn dropping_the_last_handle_ends_the_threads() {
    let workers = Workers::new(2);
    workers.submit(|| ()).join();
    let shared = Arc::downgrade(&workers.owner.0);
    drop(workers);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while shared.upgrade().is_some() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(
        shared.upgrade().is_none(),
        "the worker threads outlived the pool"
    );
}
