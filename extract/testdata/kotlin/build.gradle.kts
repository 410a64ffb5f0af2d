plugins {
    kotlin("jvm") version "2.0.0"
}

dependencies {
    implementation("com.squareup.okio:okio:3.9.0")
    testImplementation("io.kotest:kotest-runner-junit5:5.9.1")
}
