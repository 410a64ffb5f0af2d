rootProject.name = "acme"
