using Demo.Lib;
using static Demo.Lib.Logger;

namespace Demo.App
{
    public record Entry(string Key, Logger Sink);

    public class Program
    {
        private Registry registry = new();
        public Logger Log { get; set; }

        public static void Main(string[] args)
        {
            var c = new Circle(2.0);
            c.Describe();
            Shape s = Circle.Unit();
            s.Area();
            IShape i = c;
            i.Area();
            Logger l = new();
            l.Write("x");
            Logger.Create();
            Create();
            var p = new Program();
            p.Run(c);
        }

        private Entry[] Entries() => new Entry[0];

        public void Run(IShape shape)
        {
            shape.Area();
            registry.Add(shape);
            registry.Count();
            Log.Write("run");
            Helper();
            int Helper() => 1;
            Demo.Lib.Logger.Create().Write("q");
            (shape as Circle)?.Label();
            if (shape is Circle cc) { cc.CompareTo(null); }
            System.Console.WriteLine("done");
            foreach (Entry e in Entries()) { e.Sink.Write(e.Key); }
        }
    }
}
