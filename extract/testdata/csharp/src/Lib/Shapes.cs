using System;

namespace Demo.Lib
{
    public interface IShape
    {
        double Area();
        string Name { get; }
    }

    public interface ISolid : IShape
    {
        double Volume();
    }

    public abstract class Shape : IShape
    {
        protected Logger log = new Logger();

        public abstract double Area();

        public virtual string Name => "shape";

        public virtual string Label() => "s";

        public void Describe()
        {
            log.Write(Name);
            this.Area();
        }
    }

    public class Circle : Shape, IComparable
    {
        private readonly double r;

        public Circle(double r) : base()
        {
            this.r = r;
            Validate();
        }

        public override double Area() => Math.PI * r * r;

        public override string Name => "circle";

        public int CompareTo(object other) => 0;

        public override string Label() => base.Label() + "c";

        private void Validate() { }

        public static Circle Unit() => new Circle(1);
    }

    public struct Point : IEquatable<Point>
    {
        public int X;
        public bool Equals(Point p) => p.X == X;
    }

    public enum Color { Red, Green }
}
