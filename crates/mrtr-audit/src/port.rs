//! An `async fn` run as a coroutine, so the audit can be written as straight-line code and
//! still be driven step by step (sans-IO). The audit awaits [`Port::ask`]: that leaves its
//! need in the port and is pending until the driver puts an answer there. [`Run::poll`]
//! polls with a waker that does nothing, because nothing but the driver ever wakes it: no
//! executor, no thread, no timer, so the page and the terminal run the same code.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

struct Slot<N, A, P> {
    need: Option<N>,
    answer: Option<A>,
    progress: P,
    lines: Vec<String>,
}

/// The one place the coroutine and its driver meet.
pub struct Port<N, A, P>(Rc<RefCell<Slot<N, A, P>>>);

impl<N, A, P> Clone for Port<N, A, P> {
    fn clone(&self) -> Self {
        Port(self.0.clone())
    }
}

impl<N, A, P: Default> Default for Port<N, A, P> {
    fn default() -> Self {
        Port(Rc::new(RefCell::new(Slot {
            need: None,
            answer: None,
            progress: P::default(),
            lines: Vec::new(),
        })))
    }
}

impl<N, A, P> Port<N, A, P> {
    /// Leaves `need` for the driver; ready once the driver has answered it.
    pub fn ask(&self, need: N) -> Asked<N, A, P> {
        let mut slot = self.0.borrow_mut();
        slot.answer = None;
        slot.need = Some(need);
        Asked(self.clone())
    }

    /// The need left by the last [`Port::ask`], taken.
    pub fn take_need(&self) -> Option<N> {
        self.0.borrow_mut().need.take()
    }

    /// The driver's answer to the need it took.
    pub fn answer(&self, answer: A) {
        self.0.borrow_mut().answer = Some(answer);
    }

    /// Reads or changes the progress both sides see.
    pub fn progress<T>(&self, f: impl FnOnce(&mut P) -> T) -> T {
        f(&mut self.0.borrow_mut().progress)
    }

    /// A line for the driver to show.
    pub fn say(&self, line: String) {
        self.0.borrow_mut().lines.push(line);
    }

    /// The lines said since the last call.
    pub fn take_lines(&self) -> Vec<String> {
        std::mem::take(&mut self.0.borrow_mut().lines)
    }
}

/// The future of one [`Port::ask`].
pub struct Asked<N, A, P>(Port<N, A, P>);

impl<N, A, P> Future for Asked<N, A, P> {
    type Output = A;

    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<A> {
        match (self.0).0.borrow_mut().answer.take() {
            Some(a) => Poll::Ready(a),
            None => Poll::Pending,
        }
    }
}

/// The coroutine itself.
pub struct Run<T>(Pin<Box<dyn Future<Output = T>>>);

impl<T> Run<T> {
    pub fn new(f: impl Future<Output = T> + 'static) -> Run<T> {
        Run(Box::pin(f))
    }

    /// Runs it until it ends (`Some`) or waits on its port (`None`).
    pub fn poll(&mut self) -> Option<T> {
        match self
            .0
            .as_mut()
            .poll(&mut Context::from_waker(Waker::noop()))
        {
            Poll::Ready(t) => Some(t),
            Poll::Pending => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_coroutine_stops_at_each_ask_and_goes_on_with_the_answer() {
        let port: Port<u32, u32, ()> = Port::default();
        let p = port.clone();
        let mut run = Run::new(async move {
            let a = p.ask(1).await;
            let b = p.ask(a + 1).await;
            a + b
        });
        assert_eq!(run.poll(), None);
        assert_eq!(port.take_need(), Some(1));
        // Polled again without an answer, it is still waiting and asks nothing new.
        assert_eq!(run.poll(), None);
        assert_eq!(port.take_need(), None);
        port.answer(10);
        assert_eq!(run.poll(), None);
        assert_eq!(port.take_need(), Some(11));
        port.answer(5);
        assert_eq!(run.poll(), Some(15));
    }
}
