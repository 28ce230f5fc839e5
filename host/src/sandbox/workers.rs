//! The engine's worker threads: one bounded pool of named threads for the
//! work the host does beside a guest's single thread (reading files ahead,
//! splitting a long batched read, checking entries at the boundary), and
//! the switches that turn each of those speedups off.
//!
//! No call spawns a thread: threads start on first need, up to the pool's
//! size, and then wait for work. A job handed to the pool is claimed by
//! whoever gets to it first: a worker, or the caller when it asks for the
//! result ([`Pending::join`]). So a caller never waits for a job that no
//! worker has started, a busy pool costs parallelism and never progress,
//! and no job can deadlock on another. Jobs past the queue's bound are not
//! queued at all; their caller runs them itself.

use crate::sync::lock;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};

/// Most worker threads one engine runs. Reading ahead is disk-bound, so a
/// few more threads than cores still pay; beyond this they only contend.
pub const MAX_WORKERS: usize = 8;

/// Jobs waiting per worker thread, past which a job is run by its caller.
const QUEUED_PER_WORKER: usize = 4;

/// Which of the host's speedups are on. Each is a pure speedup: with any
/// of them off, every answer is the same, only slower. Benches turn them
/// off one at a time to show what each buys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Speedups {
    /// Files a provider announces (`prefetch`) are read by workers while
    /// it parses the previous batch (`imports/files/prefetch.rs`).
    pub read_ahead: bool,
    /// A long batched read or stat is split over workers
    /// (`imports/files/read.rs`).
    pub parallel_reads: bool,
    /// Entries a provider sends ahead (`emit-skills`) are checked at the
    /// boundary by a worker while it scans on (`provider/ahead.rs`).
    pub checks_ahead: bool,
    /// A long answer's entries are checked in two halves, one on a worker
    /// (`provider/incoming.rs`).
    pub parallel_checks: bool,
}

impl Default for Speedups {
    fn default() -> Self {
        Speedups::ALL
    }
}

impl Speedups {
    /// Every speedup on: what a host runs.
    pub const ALL: Speedups = Speedups {
        read_ahead: true,
        parallel_reads: true,
        checks_ahead: true,
        parallel_checks: true,
    };
    /// Every speedup off: each job runs on its caller's thread.
    pub const NONE: Speedups = Speedups {
        read_ahead: false,
        parallel_reads: false,
        checks_ahead: false,
        parallel_checks: false,
    };
}

type Job = Box<dyn FnOnce() + Send>;

/// One engine's pool of worker threads. Cheap to clone.
#[derive(Clone)]
pub struct Workers {
    owner: Arc<Owner>,
}

struct Shared {
    size: usize,
    queue: Mutex<Queue>,
    work: Condvar,
    speedups: Mutex<Speedups>,
    /// At most one warning that a thread could not start.
    warned: AtomicBool,
}

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Job>,
    threads: usize,
    idle: usize,
    /// Jobs a worker is running now.
    running: usize,
    stopped: bool,
}

impl std::fmt::Debug for Workers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let queue = lock(&self.owner.0.queue);
        f.debug_struct("Workers")
            .field("size", &self.owner.0.size)
            .field("threads", &queue.threads)
            .field("queued", &queue.jobs.len())
            .finish()
    }
}

impl Workers {
    /// A pool of at most `size` threads (0: every job runs on its caller's
    /// thread), with every speedup on.
    pub fn new(size: usize) -> Workers {
        Workers {
            owner: Arc::new(Owner(Arc::new(Shared {
                size: size.min(MAX_WORKERS),
                queue: Mutex::new(Queue::default()),
                work: Condvar::new(),
                speedups: Mutex::new(Speedups::ALL),
                warned: AtomicBool::new(false),
            }))),
        }
    }

    /// The pool's bound on threads.
    pub fn size(&self) -> usize {
        self.owner.0.size
    }

    /// Worker threads started so far.
    pub fn threads(&self) -> usize {
        lock(&self.owner.0.queue).threads
    }

    /// Jobs waiting or running now: 0 once everything handed to the pool
    /// (a call's read-ahead included) is over.
    pub fn busy(&self) -> usize {
        let queue = lock(&self.owner.0.queue);
        queue.jobs.len() + queue.running
    }

    /// Which speedups are on.
    pub fn speedups(&self) -> Speedups {
        *lock(&self.owner.0.speedups)
    }

    /// Turns speedups on or off, from the next call that would use them.
    pub fn set_speedups(&self, speedups: Speedups) {
        *lock(&self.owner.0.speedups) = speedups;
    }

    /// Hands `job` to the pool; its result comes from [`Pending::join`],
    /// which runs it on the caller's thread if no worker has taken it yet.
    pub(crate) fn submit<R: Send + 'static>(
        &self,
        job: impl FnOnce() -> R + Send + 'static,
    ) -> Pending<R> {
        let task = Arc::new(Task {
            job: Mutex::new(Some(Box::new(job))),
            out: Mutex::new(None),
            done: Condvar::new(),
        });
        let for_worker = task.clone();
        // Not queued (pool full or stopped): the job stays in the task and
        // its caller runs it on join.
        let _ = self.run(Box::new(move || for_worker.run()));
        Pending { task }
    }

    /// Hands `job` to the pool with nobody waiting for it. False when it
    /// was not taken (no thread, or the queue is full); the caller then
    /// goes without.
    pub(crate) fn spawn(&self, job: impl FnOnce() + Send + 'static) -> bool {
        self.run(Box::new(job))
    }

    fn run(&self, job: Job) -> bool {
        let shared = &self.owner.0;
        let mut queue = lock(&shared.queue);
        if queue.stopped || shared.size == 0 || queue.jobs.len() >= shared.size * QUEUED_PER_WORKER
        {
            return false;
        }
        // A thread more when the jobs waiting outnumber the idle threads.
        if queue.jobs.len() >= queue.idle && queue.threads < shared.size {
            let worker = shared.clone();
            let started = std::thread::Builder::new()
                .name(format!("skillhost-worker-{}", queue.threads))
                .spawn(move || worker.serve());
            match started {
                Ok(_) => queue.threads += 1,
                Err(e) => {
                    if !shared.warned.swap(true, Ordering::Relaxed) {
                        tracing::warn!(error = %e, "a worker thread could not start; the host does that work on its own threads");
                    }
                    if queue.threads == 0 {
                        return false;
                    }
                }
            }
        }
        queue.jobs.push_back(job);
        drop(queue);
        shared.work.notify_one();
        true
    }
}

impl Shared {
    fn serve(&self) {
        let mut queue = lock(&self.queue);
        loop {
            if let Some(job) = queue.jobs.pop_front() {
                queue.running += 1;
                drop(queue);
                // A job only panics on a host bug; the pool keeps its thread.
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                queue = lock(&self.queue);
                queue.running -= 1;
                continue;
            }
            if queue.stopped {
                return;
            }
            queue.idle += 1;
            queue = self.work.wait(queue).unwrap_or_else(|p| p.into_inner());
            queue.idle -= 1;
        }
    }
}

/// What the pool's handles share; when the last is dropped (the engine's
/// last clone), the threads finish what is queued and end.
struct Owner(Arc<Shared>);

impl Drop for Owner {
    fn drop(&mut self) {
        lock(&self.0.queue).stopped = true;
        self.0.work.notify_all();
    }
}

struct Task<R> {
    job: Mutex<Option<Box<dyn FnOnce() -> R + Send>>>,
    out: Mutex<Option<std::thread::Result<R>>>,
    done: Condvar,
}

impl<R> Task<R> {
    fn run(&self) {
        let Some(job) = lock(&self.job).take() else {
            return;
        };
        let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
        *lock(&self.out) = Some(out);
        self.done.notify_all();
    }
}

/// A job handed to the pool, whose result its caller will want.
pub(crate) struct Pending<R> {
    task: Arc<Task<R>>,
}

impl<R> Pending<R> {
    /// The job's result: run here if no worker took it, else waited for.
    /// A panic in the job (a host bug) resumes here, where it would have
    /// happened without the pool.
    pub(crate) fn join(self) -> R {
        let job = lock(&self.task.job).take();
        if let Some(job) = job {
            return job();
        }
        let mut out = lock(&self.task.out);
        loop {
            match out.take() {
                Some(Ok(r)) => return r,
                Some(Err(panic)) => std::panic::resume_unwind(panic),
                None => out = self.task.done.wait(out).unwrap_or_else(|p| p.into_inner()),
            }
        }
    }
}

#[cfg(test)]
#[path = "workers_tests.rs"]
mod tests;
