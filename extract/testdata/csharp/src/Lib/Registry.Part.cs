namespace Demo.Lib;

public partial class Registry
{
    public int Count() => 0;
}
