use crate::{Named, Shape};

#[derive(Default)]
pub struct Point {
    pub x: f64,
}

impl Point {
    pub fn new() -> Self {
        Point { x: 0.0 }
    }

    pub fn norm(&self) -> f64 {
        self.dot(self)
    }

    fn dot(&self, other: &Point) -> f64 {
        self.x * other.x
    }
}

pub struct Circle {
    pub center: Point,
}

impl Shape for Circle {
    fn area(&self) -> f64 {
        self.center.norm()
    }
}

impl Named for Circle {
    fn name(&self) -> String {
        String::from("circle")
    }
}

pub enum Kind {
    Round,
    Square,
}

pub union Bits {
    i: u32,
    f: f32,
}

pub type Origin = Point;

pub fn origin() -> Origin {
    Origin::new()
}
