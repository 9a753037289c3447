//! The output channel to the GUI, shared by the protocols: whole lines, flushed, from any thread.

use std::{
    io::Write,
    sync::{Arc, Mutex},
};

pub struct Output<W: Write + Send> {
    writer: Mutex<W>,
}

impl<W: Write + Send> Output<W> {
    pub fn new(writer: W) -> Arc<Output<W>> {
        Arc::new(Output {
            writer: Mutex::new(writer),
        })
    }

    pub fn line(&self, text: &str) {
        // A poisoned lock only means another thread panicked mid-write; keep talking.
        let mut w = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        // If the GUI went away there is nobody left to tell.
        let _ = writeln!(w, "{text}").and_then(|_| w.flush());
    }
}
