//! Where tasks live. A task outlives the request that created it and is read by later
//! requests, which may reach another replica: replicas that share tasks share a store
//! (Redis or etcd behind the native server; one `Arc` in the page's world).

use std::collections::BTreeMap;
use std::sync::Mutex;

use crate::tasks::record::TaskRecord;

/// Why a store could not do what was asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TaskStoreError {
    /// It holds as many live tasks as it may; nothing was created.
    Full,
    /// A task with this id exists already; nothing was written (the caller draws another id).
    Taken,
    /// It could not be reached, or did not answer in time: nothing is known to have changed.
    Unavailable(String),
}

impl std::fmt::Display for TaskStoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TaskStoreError::Full => write!(f, "the memory of tasks is full"),
            TaskStoreError::Taken => write!(f, "a task with this id exists already"),
            TaskStoreError::Unavailable(why) => {
                write!(f, "the memory of tasks is unavailable: {why}")
            }
        }
    }
}

/// A task as loaded, with the version a write must match.
pub type Versioned = (TaskRecord, u64);

/// A memory of tasks shared by the replicas that serve them. Every change is a
/// compare-and-swap on the version read, so two replicas bringing one task up to date at
/// once cannot both write: the second reads again and finds the first's change.
pub trait TaskStore {
    /// Stores a new task, readable by every later request before this returns (a create is
    /// durable before the call answers with it). It is kept until `expires_ms` (then gone).
    /// An id already in use is never overwritten: [`TaskStoreError::Taken`].
    fn create(&self, task: &TaskRecord, now_ms: u64) -> Result<(), TaskStoreError>;
    /// The task and its version, if it exists and has not expired.
    fn load(&self, id: &str, now_ms: u64) -> Result<Option<Versioned>, TaskStoreError>;
    /// Writes `task` if the stored version is still `version`; `Ok(false)` when another
    /// change came first (or the task is gone).
    fn replace(&self, task: &TaskRecord, version: u64) -> Result<bool, TaskStoreError>;
    /// How many live tasks this holder knows of.
    fn len(&self) -> usize;
    /// True when [`TaskStore::len`] is 0.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Tasks in this process's memory: bounded, and forgotten once their time to live ends.
#[derive(Debug)]
pub struct MemoryTaskStore {
    tasks: Mutex<BTreeMap<String, Versioned>>,
    capacity: usize,
}

impl MemoryTaskStore {
    /// How many live tasks [`MemoryTaskStore::default`] holds.
    pub const DEFAULT_CAPACITY: usize = 10_000;

    /// An empty store holding at most `capacity` live tasks (at least 1).
    pub fn new(capacity: usize) -> MemoryTaskStore {
        MemoryTaskStore {
            tasks: Mutex::new(BTreeMap::new()),
            capacity: capacity.max(1),
        }
    }

    fn locked(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Versioned>> {
        // A panic while holding the lock leaves whole records (each write is one insert).
        self.tasks.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Default for MemoryTaskStore {
    fn default() -> Self {
        MemoryTaskStore::new(MemoryTaskStore::DEFAULT_CAPACITY)
    }
}

impl TaskStore for MemoryTaskStore {
    fn create(&self, task: &TaskRecord, now_ms: u64) -> Result<(), TaskStoreError> {
        let mut tasks = self.locked();
        if tasks.len() >= self.capacity {
            tasks.retain(|_, (t, _)| !t.is_expired(now_ms));
        }
        if tasks.len() >= self.capacity {
            return Err(TaskStoreError::Full);
        }
        if tasks
            .get(&task.id)
            .is_some_and(|(t, _)| !t.is_expired(now_ms))
        {
            return Err(TaskStoreError::Taken);
        }
        tasks.insert(task.id.clone(), (task.clone(), 1));
        Ok(())
    }

    fn load(&self, id: &str, now_ms: u64) -> Result<Option<Versioned>, TaskStoreError> {
        let mut tasks = self.locked();
        match tasks.get(id) {
            Some((t, _)) if t.is_expired(now_ms) => {
                tasks.remove(id);
                Ok(None)
            }
            other => Ok(other.cloned()),
        }
    }

    fn replace(&self, task: &TaskRecord, version: u64) -> Result<bool, TaskStoreError> {
        let mut tasks = self.locked();
        match tasks.get_mut(&task.id) {
            Some(slot) if slot.1 == version => {
                *slot = (task.clone(), version + 1);
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    fn len(&self) -> usize {
        self.locked().len()
    }
}

impl<S: TaskStore + ?Sized> TaskStore for std::sync::Arc<S> {
    fn create(&self, task: &TaskRecord, now_ms: u64) -> Result<(), TaskStoreError> {
        (**self).create(task, now_ms)
    }
    fn load(&self, id: &str, now_ms: u64) -> Result<Option<Versioned>, TaskStoreError> {
        (**self).load(id, now_ms)
    }
    fn replace(&self, task: &TaskRecord, version: u64) -> Result<bool, TaskStoreError> {
        (**self).replace(task, version)
    }
    fn len(&self) -> usize {
        (**self).len()
    }
}
