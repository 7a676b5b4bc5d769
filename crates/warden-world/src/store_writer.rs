//! One thread writes turn results to the store, in order. SQLite takes one
//! writer at a time anyway; doing the writes here keeps them off the async
//! workers (which stream everyone's tokens) without a blocking thread per
//! turn when many turns end at once.

use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};
use warden_store::{Store, StoreResult};

type Job = Box<dyn FnOnce(&Store) + Send>;

#[derive(Clone)]
pub struct StoreWriter {
    jobs: mpsc::UnboundedSender<Job>,
}

#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error(transparent)]
    Store(#[from] warden_store::StoreError),
    #[error("the store writer stopped")]
    Stopped,
}

impl StoreWriter {
    /// Start the writer (on the blocking pool, for the life of the runtime).
    pub fn start(store: Arc<Store>) -> Self {
        let (jobs, mut queue) = mpsc::unbounded_channel::<Job>();
        tokio::task::spawn_blocking(move || {
            while let Some(job) = queue.blocking_recv() {
                job(&store);
            }
        });
        StoreWriter { jobs }
    }

    /// Run `write` on the writer thread and wait for its result.
    pub async fn write<T: Send + 'static>(
        &self,
        write: impl FnOnce(&Store) -> StoreResult<T> + Send + 'static,
    ) -> Result<T, WriteError> {
        let (done, result) = oneshot::channel();
        self.jobs
            .send(Box::new(move |store: &Store| {
                let _ = done.send(write(store));
            }))
            .map_err(|_| WriteError::Stopped)?;
        Ok(result.await.map_err(|_| WriteError::Stopped)??)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn writes_run_in_order_and_return_their_results() {
        let store = Arc::new(Store::open_in_memory().unwrap());
        let writer = StoreWriter::start(Arc::clone(&store));
        let mut pending = Vec::new();
        for i in 0..20 {
            let writer = writer.clone();
            pending.push(tokio::spawn(async move {
                writer
                    .write(move |s| s.append_messages("s", &[format!("{{\"n\":{i}}}")], None, 1))
                    .await
            }));
        }
        for p in pending {
            p.await.unwrap().unwrap();
        }
        assert_eq!(store.messages("s").unwrap().len(), 20);
        let count = writer.write(|s| s.user_count()).await.unwrap();
        assert_eq!(count, 0);
    }
}
