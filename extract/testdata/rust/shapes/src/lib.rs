//! Shapes: the library crate of the fixture.
pub mod draw;
pub mod geo;

pub use geo::Point;

/// Something with an area.
pub trait Shape: Named {
    fn area(&self) -> f64;

    fn describe(&self) -> String {
        self.area();
        self.name()
    }
}

pub trait Named {
    fn name(&self) -> String;
}

pub fn version() -> u32 {
    1
}
