ThisBuild / scalaVersion := "3.3.1"

val circeVersion = "0.14.6"

lazy val root = (project in file("."))
  .settings(
    name := "acme",
    libraryDependencies ++= Seq(
      "org.typelevel" %% "cats-core" % "2.10.0",
      "io.circe" %% "circe-core" % circeVersion,
      "com.google.guava" % "guava" % "32.1.3-jre",
      "org.scalatest" %% "scalatest" % "3.2.17" % Test
    ),
    libraryDependencies += "org.scala-js" %%% "scalajs-dom" % "2.8.0" % "provided"
  )
// "com.example" % "commented" % "1.0"
