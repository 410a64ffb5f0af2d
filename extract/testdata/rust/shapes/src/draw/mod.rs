mod canvas;

use super::geo::{Circle, Point};
use crate::Shape;

pub fn render(s: &dyn Shape) -> f64 {
    s.area()
}

pub fn render_gen<T: Shape>(s: &T) -> String {
    s.describe()
}

pub fn render_where<T>(s: T) -> f64
where
    T: Shape,
{
    s.area()
}

pub fn make() {
    let p = Point::new();
    p.norm();
    let q: Point = Default::default();
    q.norm();
    let c = Circle { center: Point::new() };
    c.area();
    c.center.norm();
    canvas::paint();
    self::canvas::paint();
    println!("{}", helper());
    let o = crate::geo::origin();
    o.norm();
    let boxed: Box<dyn Shape> = Box::new(c);
    boxed.describe();
    let unknown = p.missing();
    unknown.whatever();
}

fn helper() -> i32 {
    1
}
