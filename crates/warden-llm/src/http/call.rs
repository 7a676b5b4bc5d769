//! One model call as the transport sees it: the caller's delta sink, the
//! turn's cancellation, the overall deadline, the idle timer and the
//! progress notices. Every wait of the call (response head, body bytes,
//! retry pauses) goes through here, so each rule is enforced in one place.

use std::future::Future;
use std::time::Duration;

use tokio::time::Instant;
use warden_protocol::CancelFlag;

use super::HttpClient;
use crate::cancel::{cancelled, is_cancelled};
use crate::provider::ProviderError;
use crate::types::Delta;

/// No progress notice for waits shorter than this.
const FIRST_NOTICE_AFTER: Duration = Duration::from_secs(5);
/// Then one notice this often.
const NOTICE_EVERY: Duration = Duration::from_secs(10);
/// Stands in for "never" (tokio's own choice): a configured timeout of a
/// billion seconds must not overflow the clock.
const FAR_FUTURE: Duration = Duration::from_secs(86_400 * 365 * 30);

/// `at + by`, saturating at [`FAR_FUTURE`].
fn later(at: Instant, by: Duration) -> Instant {
    at + by.min(FAR_FUTURE)
}

pub struct Call<'a> {
    http: &'a HttpClient,
    cancel: Option<&'a CancelFlag>,
    on_delta: &'a mut (dyn FnMut(Delta<'_>) + Send),
    /// Start + `request_timeout`; retries and waits included.
    deadline: Instant,
    /// When data last arrived (or the current attempt started): the idle
    /// timeout and the progress notices count from here.
    last_data: Instant,
    next_notice: Instant,
    /// Text or thinking reached the caller: a retry would repeat it.
    answer_started: bool,
}

impl<'a> Call<'a> {
    /// Starts the call's clock.
    pub fn new(
        http: &'a HttpClient,
        cancel: Option<&'a CancelFlag>,
        on_delta: &'a mut (dyn FnMut(Delta<'_>) + Send),
    ) -> Self {
        let now = Instant::now();
        Call {
            http,
            cancel,
            on_delta,
            deadline: later(now, http.settings().request_timeout),
            last_data: now,
            next_notice: now + FIRST_NOTICE_AFTER,
            answer_started: false,
        }
    }

    pub fn http(&self) -> &'a HttpClient {
        self.http
    }

    /// Passes a piece of the answer (or a notice) to the caller.
    pub fn emit(&mut self, delta: Delta<'_>) {
        match delta {
            Delta::Text(_) | Delta::Thinking(_) => self.answer_started = true,
            Delta::Notice(_) => {}
        }
        (self.on_delta)(delta);
    }

    pub fn notice(&mut self, text: &str) {
        self.emit(Delta::Notice(text));
    }

    /// Whether part of the answer was already shown.
    pub fn answer_started(&self) -> bool {
        self.answer_started
    }

    pub fn is_cancelled(&self) -> bool {
        is_cancelled(self.cancel)
    }

    /// Bytes that carry data arrived (not a keep-alive): the idle timer
    /// and the progress notices start over.
    pub fn data_arrived(&mut self) {
        let now = Instant::now();
        self.last_data = now;
        self.next_notice = now + FIRST_NOTICE_AFTER;
    }

    /// Awaits `future` unless the turn is cancelled, the deadline passes or
    /// no data arrives for the idle timeout; says how long it has been
    /// waiting every ten seconds after the first five.
    pub async fn wait<F: Future>(&mut self, future: F) -> Result<F::Output, ProviderError> {
        let mut future = std::pin::pin!(future);
        loop {
            let idle_at = later(self.last_data, self.http.settings().idle_timeout);
            tokio::select! {
                biased;
                () = cancelled(self.cancel) => return Err(ProviderError::Cancelled),
                output = &mut future => return Ok(output),
                () = tokio::time::sleep_until(self.deadline) => return Err(self.http.deadline()),
                () = tokio::time::sleep_until(idle_at) => return Err(self.http.idle()),
                () = tokio::time::sleep_until(self.next_notice) => {
                    let waited = self.next_notice.saturating_duration_since(self.last_data);
                    self.next_notice += NOTICE_EVERY;
                    self.notice(&format!("waiting for the model… {} s", waited.as_secs()));
                }
            }
        }
    }

    /// Whether a pause of `delay` would still end before the deadline.
    pub fn fits_before_deadline(&self, delay: Duration) -> bool {
        later(Instant::now(), delay) < self.deadline
    }

    /// Sleeps before a retry, unless cancelled; tells the user why first
    /// (`notice` ends with "retrying in N s…").
    pub async fn pause(&mut self, delay: Duration, notice: &str) -> Result<(), ProviderError> {
        self.notice(notice);
        tokio::select! {
            biased;
            () = cancelled(self.cancel) => Err(ProviderError::Cancelled),
            () = tokio::time::sleep(delay.min(FAR_FUTURE)) => Ok(()),
        }
    }
}
