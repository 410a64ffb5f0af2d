dependencies {
    implementation("com.squareup.okhttp3:okhttp:4.12.0")
    api("org.slf4j:slf4j-api:2.0.9")
}
