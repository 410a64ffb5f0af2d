import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.LambdaExpressionTree;
import com.sun.source.tree.LineMap;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.NewClassTree;
import com.sun.source.tree.Tree;
import com.sun.source.util.JavacTask;
import com.sun.source.util.SourcePositions;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import com.sun.source.util.Trees;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.NestingKind;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.TypeKind;
import javax.lang.model.util.Elements;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * CallOracle parses and attributes every .java file under a project folder
 * with javac (no classpath: what the sources do not declare stays
 * unresolved and is counted) and prints one JSON line per method invocation
 * and per {@code new} that javac resolves, then a stats line.
 *
 * <p>Usage: java -cp DIR CallOracle ROOT [SOURCE_DIR...] — SOURCE_DIRs are
 * relative to ROOT (default: ROOT itself); they are the -sourcepath and
 * every .java file under them (module-info.java and package-info.java
 * left out) is compiled. Paths printed are relative to ROOT, with /.
 *
 * <p>Line shapes (one JSON object a line):
 *
 * <pre>
 * {"kind":"file","file":"a/B.java"}
 * {"kind":"call","site":{"file","line","col"},"caller":DECL,"callee":DECL,
 *  "category":FORM,"callee_kind":KIND,"context":CTX}
 * {"kind":"stats", ...counts...}
 * </pre>
 *
 * DECL is {"file","line","end_line","class","name","params","kind"}; an
 * external callee (declared outside the sources) has "external":true and
 * no file. Categories and kinds are written down in scripts/javaaccuracy/doc.go.
 */
public final class CallOracle {
  private final Path root;
  private final Trees trees;
  private final Elements elements;
  private final PrintStream out;
  private final Map<String, Integer> counts = new TreeMap<>();

  private CallOracle(Path root, Trees trees, Elements elements, PrintStream out) {
    this.root = root;
    this.trees = trees;
    this.elements = elements;
    this.out = out;
  }

  public static void main(String[] args) throws IOException {
    if (args.length < 1) {
      System.err.println("usage: CallOracle ROOT [SOURCE_DIR...]");
      System.exit(2);
    }
    Path root = Paths.get(args[0]).toAbsolutePath().normalize();
    List<Path> srcDirs = new ArrayList<>();
    for (int i = 1; i < args.length; i++) {
      srcDirs.add(root.resolve(args[i]).normalize());
    }
    if (srcDirs.isEmpty()) {
      srcDirs.add(root);
    }
    List<Path> files = new ArrayList<>();
    for (Path d : srcDirs) {
      try (Stream<Path> s = Files.walk(d)) {
        files.addAll(
            s.filter(p -> p.toString().endsWith(".java"))
                .filter(p -> !p.getFileName().toString().equals("module-info.java"))
                .filter(p -> !p.getFileName().toString().equals("package-info.java"))
                .sorted()
                .collect(Collectors.toList()));
      }
    }
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diags = new DiagnosticCollector<>();
    PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
    long start = System.nanoTime();
    try (StandardJavaFileManager fm = javac.getStandardFileManager(diags, null, StandardCharsets.UTF_8)) {
      List<String> opts = new ArrayList<>();
      opts.add("-proc:none");
      opts.add("-implicit:none");
      opts.add("-Xlint:none");
      opts.add("-nowarn");
      // Attribute every class even when some symbols do not resolve.
      opts.add("-XDshould-stop.ifError=FLOW");
      opts.add("-Xmaxerrs");
      opts.add("1000000");
      opts.add("-sourcepath");
      opts.add(srcDirs.stream().map(Path::toString).collect(Collectors.joining(java.io.File.pathSeparator)));
      Iterable<? extends JavaFileObject> units = fm.getJavaFileObjectsFromPaths(files);
      JavacTask task = (JavacTask) javac.getTask(null, fm, diags, opts, null, units);
      Iterable<? extends CompilationUnitTree> parsed = task.parse();
      task.analyze();
      CallOracle o = new CallOracle(root, Trees.instance(task), task.getElements(), out);
      for (CompilationUnitTree cu : parsed) {
        out.println("{\"kind\":\"file\",\"file\":" + q(o.rel(cu)) + "}");
        o.new Scanner(cu).scan(new TreePath(cu), null);
      }
      int errors = 0;
      for (Diagnostic<? extends JavaFileObject> d : diags.getDiagnostics()) {
        if (d.getKind() == Diagnostic.Kind.ERROR) {
          errors++;
        }
      }
      o.counts.put("files", files.size());
      o.counts.put("compiler_errors", errors);
      o.counts.put("millis", (int) ((System.nanoTime() - start) / 1_000_000));
      StringBuilder sb = new StringBuilder("{\"kind\":\"stats\"");
      for (Map.Entry<String, Integer> e : o.counts.entrySet()) {
        sb.append(',').append(q(e.getKey())).append(':').append(e.getValue());
      }
      out.println(sb.append('}'));
    }
    out.flush();
  }

  private String rel(CompilationUnitTree cu) {
    return root.relativize(Paths.get(cu.getSourceFile().toUri()).normalize()).toString().replace('\\', '/');
  }

  private void count(String key) {
    counts.merge(key, 1, Integer::sum);
  }

  /** Scanner walks one compilation unit. */
  private final class Scanner extends TreePathScanner<Void, Void> {
    private final CompilationUnitTree cu;
    private final SourcePositions pos;
    private final LineMap lines;
    private final String file;
    private final CharSequence text;

    Scanner(CompilationUnitTree cu) throws IOException {
      this.cu = cu;
      this.pos = trees.getSourcePositions();
      this.lines = cu.getLineMap();
      this.file = rel(cu);
      this.text = cu.getSourceFile().getCharContent(true);
    }

    /** written reports whether the source at p starts with word: javac's own trees (implicit super(), enum constants) do not. */
    private boolean written(long p, String word) {
      if (p < 0 || p + word.length() > text.length()) {
        return false;
      }
      return text.subSequence((int) p, (int) p + word.length()).toString().equals(word);
    }

    @Override
    public Void visitMethodInvocation(MethodInvocationTree t, Void v) {
      Element e = trees.getElement(new TreePath(getCurrentPath(), t.getMethodSelect()));
      record(t, e, formOf(t, e));
      return super.visitMethodInvocation(t, v);
    }

    @Override
    public Void visitNewClass(NewClassTree t, Void v) {
      Element e = trees.getElement(getCurrentPath());
      if (t.getClassBody() != null) {
        // new T(...) { ... }: the anonymous class's constructor stands for
        // T's (a class) or for T itself (an interface).
        Element type = trees.getElement(new TreePath(getCurrentPath(), t.getIdentifier()));
        if (type instanceof TypeElement && ((TypeElement) type).getKind().isInterface()) {
          e = type;
        } else if (e != null && e.getEnclosingElement() != null) {
          e = superConstructor(e, type);
        }
      }
      record(t, e, "constructor");
      return super.visitNewClass(t, v);
    }

    /** superConstructor finds the constructor of type an anonymous class's constructor calls. */
    private Element superConstructor(Element anonCtor, Element type) {
      if (!(type instanceof TypeElement) || !(anonCtor instanceof ExecutableElement)) {
        return type;
      }
      ExecutableElement ac = (ExecutableElement) anonCtor;
      for (Element m : type.getEnclosedElements()) {
        if (m.getKind() == ElementKind.CONSTRUCTOR
            && ((ExecutableElement) m).getParameters().size() == ac.getParameters().size()) {
          return m;
        }
      }
      return type;
    }

    private String formOf(MethodInvocationTree t, Element e) {
      ExpressionTree sel = t.getMethodSelect();
      if (sel instanceof IdentifierTree) {
        String n = ((IdentifierTree) sel).getName().toString();
        if (n.equals("super") || n.equals("this")) {
          return "ctor_chain";
        }
        return isStatic(e) ? "static" : "this";
      }
      if (!(sel instanceof MemberSelectTree)) {
        return "other";
      }
      ExpressionTree recv = ((MemberSelectTree) sel).getExpression();
      String rs = recv.toString();
      if (rs.equals("super") || rs.endsWith(".super")) {
        return "super";
      }
      if (isStatic(e)) {
        return "static";
      }
      if (rs.equals("this") || rs.endsWith(".this")) {
        return "this";
      }
      Element re = trees.getElement(new TreePath(getCurrentPath(), recv));
      if (recv instanceof IdentifierTree || recv instanceof MemberSelectTree) {
        if (re instanceof VariableElement) {
          return re.getKind() == ElementKind.FIELD ? "field" : "local";
        }
      }
      return "chained";
    }

    private void record(Tree t, Element e, String form) {
      if (e == null || e.asType() == null || e.asType().getKind() == TypeKind.ERROR) {
        count("unresolved");
        return;
      }
      if (!(e instanceof ExecutableElement) && !(e instanceof TypeElement)) {
        count("unresolved");
        return;
      }
      long p = pos.getStartPosition(cu, t);
      if (t instanceof MethodInvocationTree) {
        // The site of a.b().c() is the name c, as a reader finds it.
        ExpressionTree sel = ((MethodInvocationTree) t).getMethodSelect();
        long q = pos.getEndPosition(cu, sel);
        if (sel instanceof MemberSelectTree && q > 0) {
          p = q - ((MemberSelectTree) sel).getIdentifier().length();
        }
      }
      String word = t instanceof NewClassTree ? "new" : e.getKind() == ElementKind.CONSTRUCTOR ? "" : e.getSimpleName().toString();
      if (t instanceof MethodInvocationTree && ((MethodInvocationTree) t).getMethodSelect() instanceof IdentifierTree) {
        word = ((IdentifierTree) ((MethodInvocationTree) t).getMethodSelect()).getName().toString();
      }
      if (!written(p, word)) {
        count("synthetic");
        return;
      }
      String site = "{\"file\":" + q(file) + ",\"line\":" + lines.getLineNumber(p) + ",\"col\":" + lines.getColumnNumber(p) + "}";
      String callee = decl(e);
      if (callee == null) {
        count("unresolved");
        return;
      }
      boolean external = callee.contains("\"external\":true");
      count(external ? "external" : "in_tree");
      if (!external) {
        count("category." + form);
      }
      out.println("{\"kind\":\"call\",\"site\":" + site + ",\"caller\":" + caller() + ",\"callee\":" + callee
          + ",\"category\":" + q(form) + ",\"callee_kind\":" + q(kindOf(e)) + ",\"context\":" + q(context()) + "}");
    }

    /** context says whether the site is in a lambda or a local/anonymous class body. */
    private String context() {
      for (TreePath p = getCurrentPath(); p != null; p = p.getParentPath()) {
        Tree l = p.getLeaf();
        if (l instanceof LambdaExpressionTree) {
          return "lambda";
        }
        if (l instanceof ClassTree) {
          Element c = trees.getElement(p);
          if (c instanceof TypeElement) {
            NestingKind nk = ((TypeElement) c).getNestingKind();
            if (nk == NestingKind.ANONYMOUS || nk == NestingKind.LOCAL) {
              return "anonymous/local class";
            }
          }
          return "member";
        }
      }
      return "member";
    }

    /** caller is the innermost enclosing method (or class, for initialisers). */
    private String caller() {
      for (TreePath p = getCurrentPath(); p != null; p = p.getParentPath()) {
        Tree l = p.getLeaf();
        if (l instanceof MethodTree || l instanceof ClassTree) {
          Element e = trees.getElement(p);
          if (e != null) {
            String d = decl(e);
            if (d != null) {
              return d;
            }
          }
        }
      }
      return "{\"file\":" + q(file) + ",\"kind\":\"file\"}";
    }
  }

  private static boolean isStatic(Element e) {
    return e != null && e.getModifiers().contains(Modifier.STATIC);
  }

  private String kindOf(Element e) {
    if (e instanceof TypeElement) {
      return "class";
    }
    if (e.getKind() == ElementKind.CONSTRUCTOR) {
      return elements.getOrigin(e) == Elements.Origin.MANDATED ? "class" : "constructor";
    }
    if (e.getModifiers().contains(Modifier.STATIC)) {
      return "static method";
    }
    if (e.getModifiers().contains(Modifier.ABSTRACT)) {
      return "interface/abstract method";
    }
    if (e.getModifiers().contains(Modifier.DEFAULT)) {
      return "default method";
    }
    return "method";
  }

  /** decl describes a method, constructor or class declaration; null when it has none. */
  private String decl(Element e) {
    if (e.getKind() == ElementKind.CONSTRUCTOR && elements.getOrigin(e) == Elements.Origin.MANDATED) {
      e = e.getEnclosingElement(); // a default constructor: the class
    }
    TypeElement cls = e instanceof TypeElement ? (TypeElement) e : enclosingType(e);
    String clsName = className(cls);
    String name = e instanceof TypeElement ? clsName.substring(clsName.lastIndexOf('.') + 1) : e.getSimpleName().toString();
    if (e.getKind() == ElementKind.CONSTRUCTOR) {
      name = clsName.substring(clsName.lastIndexOf('.') + 1);
    }
    StringBuilder params = new StringBuilder();
    if (e instanceof ExecutableElement) {
      for (VariableElement p : ((ExecutableElement) e).getParameters()) {
        if (params.length() > 0) {
          params.append(',');
        }
        params.append(p.asType().toString());
      }
    }
    String kind = e instanceof TypeElement ? "class" : e.getKind() == ElementKind.CONSTRUCTOR ? "constructor" : "method";
    TreePath path = trees.getPath(e);
    if (path == null) {
      String owner = cls == null ? "" : cls.getQualifiedName().toString();
      return "{\"external\":true,\"class\":" + q(owner) + ",\"name\":" + q(name) + ",\"params\":" + q(params.toString())
          + ",\"kind\":" + q(kind) + "}";
    }
    CompilationUnitTree cu = path.getCompilationUnit();
    SourcePositions sp = trees.getSourcePositions();
    long s = sp.getStartPosition(cu, path.getLeaf());
    long en = sp.getEndPosition(cu, path.getLeaf());
    if (s < 0) {
      return null;
    }
    LineMap lm = cu.getLineMap();
    long endLine = en < 0 ? lm.getLineNumber(s) : lm.getLineNumber(Math.max(s, en - 1));
    return "{\"file\":" + q(rel(cu)) + ",\"line\":" + lm.getLineNumber(s) + ",\"end_line\":" + endLine
        + ",\"class\":" + q(clsName) + ",\"name\":" + q(name) + ",\"params\":" + q(params.toString())
        + ",\"kind\":" + q(kind) + "}";
  }

  private static TypeElement enclosingType(Element e) {
    for (Element o = e.getEnclosingElement(); o != null; o = o.getEnclosingElement()) {
      if (o instanceof TypeElement) {
        return (TypeElement) o;
      }
    }
    return null;
  }

  /** className is the class's name inside its file: Outer.Inner, anonymous classes skipped. */
  private static String className(TypeElement t) {
    List<String> parts = new ArrayList<>();
    for (Element o = t; o != null; o = o.getEnclosingElement()) {
      if (o instanceof TypeElement) {
        String n = o.getSimpleName().toString();
        if (!n.isEmpty()) {
          parts.add(0, n);
        }
      }
    }
    return String.join(".", parts);
  }

  private static String q(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"':
          b.append("\\\"");
          break;
        case '\\':
          b.append("\\\\");
          break;
        default:
          if (c < 0x20) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
      }
    }
    return b.append('"').toString();
  }
}
