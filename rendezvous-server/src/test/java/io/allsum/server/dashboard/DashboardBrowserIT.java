package io.allsum.server.dashboard;

import io.allsum.model.rendezvous.GroupView;
import io.allsum.server.rendezvous.RendezvousHttp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard as a person uses it, in a real headless Chromium against the real server on a random port, with
 * ranks that join and report over real HTTP ({@link HttpRanks}): log in with the token, watch a group form without
 * reloading, submit a sweep from the form, read the plot, watch a running job's rows grow, and get the server's
 * problem for a bad sweep; start a validation and read its pair heatmap with the slow rank and link marked. Screenshots
 * (1280x800 and 390x844, light and dark) go to target/screenshots, kept by CI.
 */
@EnabledWithChromium
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "allsum.security.token=" + DashboardBrowserIT.TOKEN,
        // Ranks of the sweep test join seconds apart, on purpose: no join deadline may end the generation first.
        "allsum.rendezvous.join-timeout=120s"})
class DashboardBrowserIT {

    static final String TOKEN = "browser-test-token";
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final Path SHOTS = Path.of(System.getProperty("allsum.screenshots", "target/screenshots"));

    /** The innermost elements that stick out to the right of the screen, for the message of a failed layout check. */
    private static final String WIDER_THAN_SCREEN = """
            return [...document.querySelectorAll('body *')]
              .filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
              .filter(e => ![...e.children].some(c => c.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5))
              .slice(0, 8).map(e => e.tagName + (e.id ? '#' + e.id : '') + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))
              .join(', ')""";

    @LocalServerPort
    int port;

    private ChromeDriver browser;
    private WebDriverWait await;
    private RendezvousHttp http;

    @BeforeEach
    void startBrowser() {
        ChromeOptions options = new ChromeOptions();
        options.setBinary(EnabledWithChromium.Condition.chromium().orElseThrow().toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--hide-scrollbars", "--window-size=1280,800", "--lang=en-US");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(EnabledWithChromium.Condition.chromedriver().orElseThrow().toFile())
                .usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
        browser.manage().timeouts().pageLoadTimeout(WAIT).scriptTimeout(WAIT);
        await = new WebDriverWait(browser, WAIT, Duration.ofMillis(100));
        await.ignoring(StaleElementReferenceException.class);
        http = new RendezvousHttp(port, TOKEN);
    }

    @AfterEach
    void stopBrowser() {
        if (browser != null) {
            browser.quit();
        }
    }

    @Test
    void aPersonLogsInWatchesAGroupFormRunsASweepAndSeesOnePointPerSize() throws Exception {
        String group = "lab-" + UUID.randomUUID().toString().substring(0, 6);
        browser.get(url("/dashboard/"));
        WebElement tokenField = await.until(ExpectedConditions.visibilityOfElementLocated(By.id("token")));
        screenshot("login", 1280, 800, false);

        tokenField.sendKeys("not-the-token");
        browser.findElement(By.cssSelector("#login-form button[type=submit]")).click();
        await.until(ExpectedConditions.textToBePresentInElementLocated(By.id("login-error"), "refused"));
        assertThat(browser.findElement(By.id("app")).isDisplayed()).isFalse();

        tokenField.clear();
        tokenField.sendKeys(TOKEN);
        browser.findElement(By.cssSelector("#login-form button[type=submit]")).click();
        await.until(ExpectedConditions.visibilityOfElementLocated(By.id("groups-h")));
        assertThat(browser.getCurrentUrl()).doesNotContain(TOKEN);
        assertThat(js("return sessionStorage.getItem('allsum.dashboard.token')")).isEqualTo(TOKEN);
        js("window.noReloadMarker = 'still here'");

        try (HttpRanks ranks = new HttpRanks(http, group, 4, 18.0)) {
            var first = List.of(ranks.join(0), ranks.join(2));
            String card = "[data-testid=group][data-group='" + group + "'] ";
            await.until(d -> text(card + "[data-testid=missing]").equals("missing ranks: 1, 3")
                    && text(card + "[data-testid=group-state]").equals("joining"));
            assertThat(count(card + "[data-testid=member]")).isEqualTo(2);

            var rest = List.of(ranks.join(1), ranks.join(3));
            await.until(d -> text(card + "[data-testid=group-state]").equals("complete"));
            assertThat(count(card + "[data-testid=member]")).isEqualTo(4);
            assertThat(count(card + "[data-testid=missing]")).isZero();
            assertThat(js("return window.noReloadMarker")).as("the page was not reloaded").isEqualTo("still here");
            long generation = 0;
            for (var join : List.of(first.get(0), first.get(1), rest.get(0), rest.get(1))) {
                GroupView view = join.get(60, TimeUnit.SECONDS);
                generation = view.generation();
            }
            ranks.serve(generation);

            browser.findElement(By.cssSelector(card + "button[data-action=group]")).click();
            WebElement form = await.until(ExpectedConditions.visibilityOfElementLocated(By.id("submit-form")));
            fill(form, "minBytes", "1K");
            fill(form, "maxBytes", "16M");
            fill(form, "iterations", "5");
            for (int run = 1; run <= 3; run++) {
                form.findElement(By.cssSelector("button[type=submit]")).click();
                int seq = run;
                await.until(d -> !d.findElements(By.cssSelector("[data-testid=job][data-state=succeeded]")).isEmpty()
                        && d.findElement(By.id("job-h")).getText().startsWith("Job " + seq + " "));
            }

            List<Long> sizes = LongStream.rangeClosed(10, 24).map(e -> 1L << e).boxed().toList();
            // The plot is drawn from the next job-list fetch, which may come just after the job's row turned green.
            await.until(d -> d.findElements(By.cssSelector("[data-testid=plot] [data-testid=point]")).size()
                    >= sizes.size());
            List<WebElement> points = browser.findElements(By.cssSelector("[data-testid=plot] [data-testid=point]"));
            assertThat(points).extracting(p -> Long.parseLong(p.getAttribute("data-bytes")))
                    .as("one point per size, 1 KiB to 16 MiB").containsExactlyElementsOf(sizes);
            assertThat(browser.findElement(By.cssSelector("[data-testid=plot] [data-testid=x-label]")).getText())
                    .contains("message size");
            assertThat(browser.findElement(By.cssSelector("[data-testid=plot] [data-testid=y-label]")).getText())
                    .contains("bus bandwidth (GB/s)");
            assertThat(browser.findElements(By.cssSelector("[data-testid=results] tbody tr"))).hasSize(sizes.size());
            assertThat(browser.findElement(By.cssSelector("[data-testid=wrong]")).getText()).isEqualTo("0");
            assertThat(browser.findElements(By.cssSelector("[data-testid=rank-times] thead th"))).hasSize(1 + 4);
            await.until(d -> d.findElements(By.cssSelector("[data-testid=history-plot] circle")).size() == 3);
            assertThat(browser.findElements(By.cssSelector("[data-testid=history] tbody tr"))).hasSize(3);

            for (boolean dark : new boolean[]{false, true}) {
                screenshot("sweep-1280x800", 1280, 800, dark);
                screenshot("sweep-390x844", 390, 844, dark);
                assertThat((Long) js("return document.documentElement.scrollWidth"))
                        .as("no sideways scrolling of the whole page at phone width; wider than the screen: %s",
                                js(WIDER_THAN_SCREEN)).isLessThanOrEqualTo(390L);
            }
            screenshotFullPage("sweep-full-1280", 1280, false);
        }
    }

    /** Tables whose columns must all show at phone width, inside their box: no sideways scrolling needed. */
    private static final String CLIPPED_KEY_TABLES = """
            return [...document.querySelectorAll('[data-testid=jobs], [data-testid=results], table.members')]
              .filter(t => { const box = t.closest('.scroll'); return box.scrollWidth > box.clientWidth + 0.5
                  || [...t.querySelectorAll('thead th')].some(th => th.offsetParent !== null
                      && th.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5); })
              .map(t => (t.dataset.testid || t.className) + ' ' + t.closest('.scroll').scrollWidth + '>' + t.closest('.scroll').clientWidth)
              .join(', ')""";

    @Test
    void aRunningJobShowsTheSizesMeasuredSoFarAndItsTablesFitAPhone() throws Exception {
        String group = "live-" + UUID.randomUUID().toString().substring(0, 6);
        try (HttpRanks ranks = new HttpRanks(http, group, 2, 12.0).paced(500)) {
            WebElement form = servedGroupsForm(ranks, group);
            fill(form, "minBytes", "1K");
            fill(form, "maxBytes", "1M");
            form.findElement(By.cssSelector("button[type=submit]")).click();

            // 11 sizes: while the ranks hold their final reports the page shows the ones measured, growing.
            await.until(d -> count("[data-testid=job][data-state=running] [data-testid=results] tbody tr") >= 1);
            long early = count("[data-testid=results] tbody tr");
            await.until(d -> count("[data-testid=job][data-state=running] [data-testid=results] tbody tr") > early);
            assertThat(early).as("rows seen before the last partial report").isLessThan(10);
            assertThat(text("[data-testid=progress]")).startsWith("Running: ").contains("done so far");
            assertThat((Boolean) js("return document.querySelectorAll('[data-testid=plot] [data-testid=point]').length"
                    + " === document.querySelectorAll('[data-testid=results] tbody tr').length")).as("a point per row").isTrue();
            assertThat(text("[data-testid=job-row] time")).as("a date with the time").matches("\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}");

            await.until(d -> count("[data-testid=job][data-state=running] [data-testid=results] tbody tr") == 10);
            emulate(390, 844, false);
            assertThat((String) js(CLIPPED_KEY_TABLES)).as("key tables clipped at 390 px").isEmpty();
            assertThat((Long) js("return document.documentElement.scrollWidth")).isLessThanOrEqualTo(390L);
            assertThat((Boolean) js("return [...document.querySelectorAll('[data-testid=results] thead th')]"
                    + ".filter(th => th.offsetParent !== null).map(th => th.textContent).join('|')"
                    + " === 'size|time \u00b5s|busbw GB/s|#wrong'")).as("the results' key columns").isTrue();
            js("document.querySelector('[data-testid=job]').scrollIntoView({block: 'start'})");
            save("live-rows-390x844-light");
            Path docsImages = Path.of(System.getProperty("allsum.repo", "..")).resolve("docs/images");
            if (Files.isDirectory(docsImages)) {
                Files.write(docsImages.resolve("dashboard-live-390.png"), browser.getScreenshotAs(OutputType.BYTES));
            }

            ranks.finishJobs();
            await.until(d -> count("[data-testid=job][data-state=succeeded] [data-testid=results] tbody tr") == 11);
            assertThat(count("[data-testid=progress]")).isZero();
            assertThat((String) js(CLIPPED_KEY_TABLES)).as("key tables clipped at 390 px").isEmpty();
        }
    }

    @Test
    void aBadSweepShowsTheServersProblemNextToTheFieldItNames() throws Exception {
        String group = "bad-" + UUID.randomUUID().toString().substring(0, 6);
        try (HttpRanks ranks = new HttpRanks(http, group, 2, 10.0)) {
            WebElement form = servedGroupsForm(ranks, group);
            fill(form, "minBytes", "1M");
            fill(form, "maxBytes", "1K");
            form.findElement(By.cssSelector("button[type=submit]")).click();

            assertThat(badRequestShownIn("submit-error")).contains("maxBytes")
                    .containsOnlyOnce("must be at least minBytes (1048576)");
            WebElement maxBytes = form.findElement(By.name("maxBytes"));
            assertThat(maxBytes.getAttribute("aria-invalid")).isEqualTo("true");
            assertThat(browser.switchTo().activeElement().getAttribute("name")).isEqualTo("maxBytes");
            assertThat(browser.findElements(By.cssSelector("[data-testid=job-row]"))).as("nothing was queued").isEmpty();
            emulate(390, 844, false);
            js("document.getElementById('submit-error').scrollIntoView({block: 'center'})");
            save("bad-sweep-390x844-light");

            fill(form, "maxBytes", "lots");
            form.findElement(By.cssSelector("button[type=submit]")).click();
            await.until(ExpectedConditions.textToBePresentInElementLocated(By.id("submit-error"), "maxBytes"));
            assertThat(browser.findElement(By.cssSelector("[data-testid=problem-title]")).getText()).contains("(400)");
        }
    }

    /** The cells of the heatmap, by class: which pairs are coloured how and outlined, in one script. */
    private static final String HEAT_CELLS = """
            return [...document.querySelectorAll('[data-testid=heatmap] td[data-testid=pair]')]
              .map(td => td.dataset.low + '-' + td.dataset.high + ' ' + [...td.classList].filter(c => c !== 'heat').join(' '))""";

    @Test
    void aValidationStartedFromThePageShowsThePairHeatmapWithTheSlowRankAndLinkMarked() throws Exception {
        String group = "val-" + UUID.randomUUID().toString().substring(0, 6);
        try (HttpRanks ranks = new HttpRanks(http, group, 6, 12.0).slowRank(4).slowLink(0, 1).paced(300)) {
            WebElement form = servedGroupsForm(ranks, group, "validate-form");
            fill(form, "validation.pairBytes", "1M");
            form.findElement(By.cssSelector("button[type=submit]")).click();

            // Every pair measured, the sweep not yet reported: the heatmap is there while the job runs.
            await.until(d -> count("[data-testid=job][data-state=running] [data-testid=heatmap] td[data-testid=pair]") == 6 * 5);
            assertThat(text("[data-testid=verdict]")).startsWith("Measuring: all together");
            assertThat(count("[data-testid=suspect]")).as("no suspect before the verdict").isZero();
            ranks.finishJobs();

            await.until(d -> "suspects".equals(js("return document.querySelector('[data-testid=verdict]').dataset.verdict")));
            assertThat(text("[data-testid=verdict]")).isEqualTo("Verdict: 2 suspects: rank 4 (node-2), link 0-1");
            @SuppressWarnings("unchecked")
            List<String> cells = (List<String>) js(HEAT_CELLS);
            assertThat(cells).hasSize(30);
            for (String cell : cells) {
                String pair = cell.substring(0, cell.indexOf(' '));
                boolean slowRank = pair.startsWith("4-") || pair.endsWith("-4");
                String expected = slowRank ? "heat-0" : pair.equals("0-1") ? "heat-0 suspect-link" : "heat-4";
                assertThat(cell).as("cell %s", pair).isEqualTo(pair + " " + expected);
            }
            assertThat(browser.findElements(By.cssSelector("[data-testid=heatmap] th.suspect")))
                    .as("rank 4's column and row headers").hasSize(2)
                    .allSatisfy(th -> assertThat(th.getText()).startsWith("4"))
                    .allSatisfy(th -> assertThat(th.getAttribute("title")).contains("rank 4: alone:"));
            assertThat(browser.findElement(By.cssSelector("td.suspect-link")).getAttribute("title"))
                    .contains("GB/s each way").contains("suspect link: pair 0-1:");
            assertThat(browser.findElements(By.cssSelector("[data-testid=suspect]"))).extracting(e -> e.getAttribute("data-kind"))
                    .containsExactly("rank", "link");
            assertThat(text("[data-testid=heatmap] caption")).as("the slowest rank's clock for the pair phase")
                    .endsWith(", measured in 1.00 s");
            assertThat(browser.findElements(By.cssSelector("[data-testid=legend] .swatch"))).hasSize(5);
            await.until(d -> count("[data-testid=validation-run][data-verdict=suspects]") == 1);
            assertThat(text("[data-testid=validation-run] td.why")).as("the group's validations, with their suspects")
                    .isEqualTo("rank 4 (node-2), link 0-1");
            assertThat(browser.findElements(By.cssSelector("[data-testid=solo-row]"))).hasSize(6);
            var job = RendezvousHttp.json(http.get("/rendezvous/" + group + "/jobs")).get(0);
            double alone = job.get("validation").get("solo").valueStream().filter(f -> f.get("rank").asInt() == 4)
                    .findFirst().orElseThrow().get("gbps").asDouble();
            assertThat(text("[data-testid=solo-row][data-rank='4'] td:nth-of-type(3)")).as("rank 4's figure alone")
                    .isEqualTo(String.format(Locale.ROOT, "%.2f", alone));
            await.until(d -> count("[data-testid=job][data-state=succeeded] [data-testid=results] tbody tr")
                    == job.get("results").size());
            var spec = job.get("spec");
            assertThat(spec.get("validation").get("pairBytes").asLong()).isEqualTo(1 << 20);
            assertThat(spec.get("op").asString() + " " + spec.get("minBytes") + ".." + spec.get("maxBytes") + " x"
                    + spec.get("stepFactor")).as("the sweep allsum validate runs").isEqualTo("all_reduce 1024..4194304 x4");

            Path docsImages = Path.of(System.getProperty("allsum.repo", "..")).resolve("docs/images");
            for (boolean dark : new boolean[]{false, true}) {
                screenshot("validation-1280x800", 1280, 800, dark);
                screenshot("validation-390x844", 390, 844, dark);
                assertThat((Long) js("return document.documentElement.scrollWidth"))
                        .as("no sideways scrolling at phone width; wider than the screen: %s", js(WIDER_THAN_SCREEN))
                        .isLessThanOrEqualTo(390L);
                assertThat((String) js(CLIPPED_VALIDATION_TABLES)).as("validation tables clipped at 390 px").isEmpty();
            }
            emulate(1280, 800, false);
            js("document.querySelector('[data-testid=job]').scrollIntoView({block: 'start'})");
            if (Files.isDirectory(docsImages)) {
                Files.write(docsImages.resolve("dashboard-validation.png"), browser.getScreenshotAs(OutputType.BYTES));
            }
            emulate(390, 844, false);
            js("document.querySelector('[data-testid=heatmap-figure]').scrollIntoView({block: 'start'})");
            save("validation-heatmap-390x844-light");
            if (Files.isDirectory(docsImages)) {
                Files.write(docsImages.resolve("dashboard-validation-390.png"), browser.getScreenshotAs(OutputType.BYTES));
            }
        }
    }

    /** The solo and suspects tables show every column at phone width (the heatmap may scroll in its box). */
    private static final String CLIPPED_VALIDATION_TABLES = """
            return [...document.querySelectorAll('[data-testid=solo], [data-testid=suspects]')]
              .filter(t => t.closest('.scroll').scrollWidth > t.closest('.scroll').clientWidth + 0.5)
              .map(t => t.dataset.testid + ' ' + t.closest('.scroll').scrollWidth + '>' + t.closest('.scroll').clientWidth)
              .join(', ')""";

    @Test
    void aValidationOfAOneRankGroupShowsTheServersProblem() throws Exception {
        String group = "one-" + UUID.randomUUID().toString().substring(0, 6);
        try (HttpRanks ranks = new HttpRanks(http, group, 1, 10.0)) {
            WebElement form = servedGroupsForm(ranks, group, "validate-form");
            form.findElement(By.cssSelector("button[type=submit]")).click();
            assertThat(badRequestShownIn("validate-error")).contains("validation")
                    .contains("needs at least 2 ranks");
            assertThat(browser.findElements(By.cssSelector("[data-testid=job-row]"))).as("nothing was queued").isEmpty();
        }
    }

    /** Both ranks join and serve; the person logs in on the group's page: its sweep form, ready to submit. */
    private WebElement servedGroupsForm(HttpRanks ranks, String group) throws Exception {
        return servedGroupsForm(ranks, group, "submit-form");
    }

    /** Every rank joins and serves; the person logs in on the group's page: the form {@code formId}, ready. */
    private WebElement servedGroupsForm(HttpRanks ranks, String group, String formId) throws Exception {
        var joins = IntStream.range(0, ranks.worldSize()).mapToObj(ranks::join).toList();
        long generation = 0;
        for (var join : joins) {
            generation = join.get(60, TimeUnit.SECONDS).generation();
        }
        ranks.serve(generation);
        logIn("/dashboard/#group=" + group);
        WebElement form = await.until(ExpectedConditions.visibilityOfElementLocated(By.id(formId)));
        await.until(d -> form.findElement(By.cssSelector("button[type=submit]")).isEnabled());
        return form;
    }

    /** The text of the problem in the box {@code boxId}, once shown; its title names the status 400. */
    private String badRequestShownIn(String boxId) {
        WebElement title = await.until(ExpectedConditions.visibilityOfElementLocated(
                By.cssSelector("#" + boxId + " [data-testid=problem-title]")));
        assertThat(title.getText()).contains("(400)");
        return browser.findElement(By.id(boxId)).getText();
    }

    private void logIn(String path) {
        browser.get(url(path));
        WebElement tokenField = await.until(ExpectedConditions.visibilityOfElementLocated(By.id("token")));
        tokenField.sendKeys(TOKEN);
        browser.findElement(By.cssSelector("#login-form button[type=submit]")).click();
        await.until(ExpectedConditions.visibilityOfElementLocated(By.id("groups-h")));
    }

    /** Read in one script: the group list is redrawn at every poll, so element handles go stale between calls. */
    private String text(String css) {
        return (String) js("const e = document.querySelector(arguments[0]); return e ? e.textContent.trim() : ''", css);
    }

    private long count(String css) {
        return (Long) js("return document.querySelectorAll(arguments[0]).length", css);
    }

    private static void fill(WebElement form, String name, String value) {
        WebElement field = form.findElement(By.name(name));
        field.clear();
        field.sendKeys(value);
    }

    private Object js(String script, Object... args) {
        return ((JavascriptExecutor) browser).executeScript(script, args);
    }

    private String url(String path) {
        return "http://127.0.0.1:" + port + path;
    }

    /** The viewport at exactly width x height CSS pixels, in the given colour scheme. */
    private void screenshot(String name, int width, int height, boolean dark) throws IOException {
        emulate(width, height, dark);
        save(name + (dark ? "-dark" : "-light"));
    }

    /** The whole page at {@code width}, however long it is. */
    private void screenshotFullPage(String name, int width, boolean dark) throws IOException {
        emulate(width, 800, dark);
        long height = (Long) js("return Math.ceil(document.documentElement.scrollHeight)");
        emulate(width, (int) Math.min(height, 4000), dark);
        save(name + (dark ? "-dark" : "-light"));
    }

    private void emulate(int width, int height, boolean dark) {
        browser.executeCdpCommand("Emulation.setDeviceMetricsOverride", Map.of("width", width, "height", height,
                "deviceScaleFactor", 1, "mobile", width < 600));
        browser.executeCdpCommand("Emulation.setEmulatedMedia", Map.of("features",
                List.of(Map.of("name", "prefers-color-scheme", "value", dark ? "dark" : "light"))));
        await.until(d -> Boolean.valueOf(dark).equals(js("return matchMedia('(prefers-color-scheme: dark)').matches"))
                && ((Long) js("return document.documentElement.clientWidth")) == width);
    }

    private void save(String name) throws IOException {
        Files.createDirectories(SHOTS);
        Files.write(SHOTS.resolve(name + ".png"), browser.getScreenshotAs(OutputType.BYTES));
    }
}
