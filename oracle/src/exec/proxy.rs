//! The async proxy in the executor: the last generic write of every shared byte, whether its
//! thread fenced it (`fence.proxy.async`) and when, and every fence with its thread's clock. A
//! bulk copy that reads a byte whose last write is ordered before it, with no fence ordered
//! after that write and before the copy (the writer's own, or another thread's that the write
//! happens before: fences are cumulative), saw a missing proxy fence.

use super::clock::{Agent, Clock};
use crate::ir::{ArrayId, Label};
use std::collections::HashMap;

/// A byte of shared memory.
type Byte = (ArrayId, u64);

/// The last generic write of a byte.
#[derive(Clone, Copy, Debug)]
struct Write {
    thread: Agent,
    /// The thread's clock entry at the write.
    epoch: u32,
    label: Label,
    /// The thread's clock entry at its first proxy fence after the write.
    fence: Option<u32>,
}

/// Generic writes of shared memory and their fences.
#[derive(Debug, Default)]
pub struct ProxyHistory {
    last: HashMap<Byte, Write>,
    /// Per thread, the bytes it wrote since its last fence.
    unfenced: HashMap<Agent, Vec<Byte>>,
    /// Every fence: its thread, the thread's clock entry and its clock.
    fences: Vec<(Agent, u32, Clock)>,
}

impl ProxyHistory {
    /// Thread `thread` writes `byte` at `epoch` (a generic-proxy write).
    pub fn write(&mut self, byte: Byte, thread: Agent, epoch: u32, label: Label) {
        let w = Write {
            thread,
            epoch,
            label,
            fence: None,
        };
        self.last.insert(byte, w);
        self.unfenced.entry(thread).or_default().push(byte);
    }

    /// An async-proxy write (a copy's): nothing generic is left to fence.
    pub fn overwrite(&mut self, byte: Byte) {
        self.last.remove(&byte);
    }

    /// Thread `thread` runs `fence.proxy.async` with clock `clock`.
    pub fn fence(&mut self, thread: Agent, clock: &Clock) {
        let epoch = clock.get(thread);
        self.fences.push((thread, epoch, clock.clone()));
        for byte in self.unfenced.remove(&thread).unwrap_or_default() {
            if let Some(w) = self.last.get_mut(&byte) {
                if w.thread == thread && w.fence.is_none() {
                    w.fence = Some(epoch);
                }
            }
        }
    }

    /// The write of `byte` a copy with clock `clock` reads through the async proxy without a
    /// fence ordered before it, if there is one (an unordered write is a race, not this).
    pub fn unfenced_read(&self, byte: Byte, clock: &Clock) -> Option<Label> {
        let w = self.last.get(&byte)?;
        let seen = clock.get(w.thread);
        let own = w.fence.is_some_and(|f| f <= seen);
        // Another thread's fence covers the write if the write happens before it (a release of
        // the writer's after the write that the fencing thread acquired).
        let other = || {
            self.fences
                .iter()
                .any(|(t, e, c)| *t != w.thread && c.get(w.thread) >= w.epoch && clock.get(*t) >= *e)
        };
        (w.epoch <= seen && !own && !other()).then_some(w.label)
    }
}
