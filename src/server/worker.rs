//! The background thread that checks documents, off the main loop: a queue of jobs in which a
//! newer version of a document replaces a queued older one, each job's stages sent to the main
//! loop as events. A panic inside a check becomes a diagnostic; the thread goes on.

use super::analysis;
use super::diagnostics::internal_error;
use super::events::{Event, JobEvent, Stage};
use super::job::Job;
use super::log::Log;
use super::options::ServerOptions;
use crate::workflow::WORKER_STACK;
use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

/// The jobs waiting for the thread.
#[derive(Default)]
struct Queue {
    jobs: Mutex<VecDeque<Job>>,
    ready: Condvar,
}

/// Hands jobs to the background thread.
pub struct Worker {
    queue: Arc<Queue>,
}

impl Worker {
    /// Starts the thread (on a stack as deep as the command line's workers: checking recurses
    /// as deep as the code nests).
    pub fn start(o: Arc<ServerOptions>, events: Sender<Event>, log: Log) -> std::io::Result<Worker> {
        let queue = Arc::new(Queue::default());
        let q = queue.clone();
        std::thread::Builder::new()
            .name("autosync-check".into())
            .stack_size(WORKER_STACK)
            .spawn(move || serve(&q, &o, &events, &log))?;
        Ok(Worker { queue })
    }

    /// Queues `job`; a queued job of the same document is dropped (it is superseded).
    pub fn submit(&self, job: Job) {
        let mut jobs = self.queue.jobs.lock().unwrap_or_else(|p| p.into_inner());
        jobs.retain(|j| j.uri != job.uri);
        jobs.push_back(job);
        self.queue.ready.notify_one();
    }
}

fn next(q: &Queue) -> Job {
    let mut jobs = q.jobs.lock().unwrap_or_else(|p| p.into_inner());
    loop {
        if let Some(j) = jobs.pop_front() {
            return j;
        }
        jobs = q.ready.wait(jobs).unwrap_or_else(|p| p.into_inner());
    }
}

fn serve(q: &Queue, o: &ServerOptions, events: &Sender<Event>, log: &Log) {
    loop {
        let job = next(q);
        if job.cancelled() {
            continue;
        }
        let t0 = Instant::now();
        log.line(|| format!("checking {} (generation {})", job.path.display(), job.generation));
        let send = |stage: Stage| {
            let _ = events.send(Event::Job(JobEvent {
                uri: job.uri.clone(),
                generation: job.generation,
                stage,
            }));
        };
        let run = catch_unwind(AssertUnwindSafe(|| {
            analysis::run(&job, o, &mut |stage| {
                if let Stage::Step(s) = &stage {
                    log.line(|| {
                        format!(
                            "{}: {s} ({:.0} ms)",
                            job.path.display(),
                            t0.elapsed().as_secs_f64() * 1e3
                        )
                    });
                }
                send(stage)
            })
        }));
        if let Err(panic) = run {
            let what = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "a panic".into());
            log.line(|| format!("{}: panicked: {what}", job.path.display()));
            send(Stage::Checked(vec![internal_error(&job.text, &what)], vec![]));
            send(Stage::Finished);
        }
        log.line(|| {
            let state = if job.cancelled() { "superseded" } else { "done" };
            format!(
                "{}: {state} in {:.0} ms",
                job.path.display(),
                t0.elapsed().as_secs_f64() * 1e3
            )
        });
    }
}
