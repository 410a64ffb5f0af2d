namespace Demo.Lib;

public class Logger
{
    public void Write(string s) { }

    public static Logger Create() => new Logger();
}

public partial class Registry
{
    public void Add(IShape s) { }
}
