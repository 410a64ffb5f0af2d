mod cli;

use shapes_core::geo::Circle;
use shapes_core::{Point, Shape};

fn main() {
    let p = Point::new();
    p.norm();
    cli::run();
    let c = Circle { center: p };
    let s: &dyn Shape = &c;
    s.area();
    shapes_core::version();
    std::process::exit(0);
}
