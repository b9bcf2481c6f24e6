//! The web app's entry point: starts MRTR Lab in the page.

fn main() {
    mrtr_lab::start();
}
