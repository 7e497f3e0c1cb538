package dev.walkit.runbooks;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The layers import downwards only (docs/architecture.md): the codec and the reader (dev.walkit.format), transaction
 * grouping, the two-core scan and the assessment (group, scan, assess), the other
 * stores' own formats (bbolt, sqlite), the replay and its policies, the one account, the stores read into the engine
 * (etcd, kine, store), the pass over a store (pass: the one entry point every tool reads a store through), writing a
 * store's own format, durable and read back (output: above the pass, which it reads its output back through), the tools'
 * common CLI, the tools; and no two tools know each other. A class that imports upwards, or a cycle between packages, fails here.
 */
class ArchitectureTest {
    private static JavaClasses classes;

    @BeforeAll
    static void load() {
        // The main classes of every module, whether the reactor gives them as directories or jars; no test class (nor a test-jar).
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(location -> !location.asURI().toString().contains("-tests.jar"))
                .importPackages("dev.walkit");
    }

    @Test
    void layersImportDownwardsOnly() {
        layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("codec and reader").definedBy("dev.walkit.format")
                .layer("grouping, scan, assessment").definedBy("dev.walkit.format.group..", "dev.walkit.format.scan..", "dev.walkit.format.assess..")
                .layer("other formats").definedBy("dev.walkit.format.bbolt..", "dev.walkit.format.sqlite..")
                .layer("replay").definedBy("dev.walkit.format.replay..", "dev.walkit.format.policy..")
                .layer("account").definedBy("dev.walkit.format.account..")
                .layer("stores").definedBy("dev.walkit.format.etcd..", "dev.walkit.format.kine..", "dev.walkit.format.store..")
                .layer("pass").definedBy("dev.walkit.format.pass..")
                .layer("output").definedBy("dev.walkit.format.output..")
                .layer("cli").definedBy("dev.walkit.cli..")
                .layer("tools").definedBy("dev.walkit.verify..", "dev.walkit.doctor..", "dev.walkit.recover..", "dev.walkit.migrate..")
                .whereLayer("tools").mayNotBeAccessedByAnyLayer()
                .whereLayer("cli").mayOnlyBeAccessedByLayers("tools")
                .whereLayer("output").mayOnlyBeAccessedByLayers("cli", "tools")
                .whereLayer("pass").mayOnlyBeAccessedByLayers("output", "cli", "tools")
                .whereLayer("stores").mayOnlyBeAccessedByLayers("pass", "output", "cli", "tools")
                .whereLayer("account").mayOnlyBeAccessedByLayers("stores", "pass", "output", "cli", "tools")
                .whereLayer("replay").mayOnlyBeAccessedByLayers("account", "stores", "pass", "output", "cli", "tools")
                .whereLayer("other formats").mayOnlyBeAccessedByLayers("stores", "pass", "output", "cli", "tools")
                .whereLayer("grouping, scan, assessment").mayOnlyBeAccessedByLayers("replay", "account", "stores", "pass", "output", "cli", "tools")
                .whereLayer("codec and reader").mayOnlyBeAccessedByLayers("grouping, scan, assessment", "replay", "account", "stores", "pass", "output", "cli", "tools")
                .check(classes);
    }

    /**
     * Which store a path is, and whether it may be used, is the pass's to say (docs/architecture.md, "The pass"): no
     * tool sniffs a store itself (dev.walkit.format.store) nor reads one through the verification engine's parts.
     */
    @Test
    void noToolSniffsAStoreItself() {
        noClasses().that().resideInAnyPackage("dev.walkit.verify..", "dev.walkit.doctor..", "dev.walkit.recover..", "dev.walkit.migrate..", "dev.walkit.cli..")
                .should().dependOnClassesThat().resideInAPackage("dev.walkit.format.store..")
                .because("a path's store is sniffed once, by Pass.input")
                .check(classes);
    }

    /**
     * No tool opens a store's files itself (docs/architecture.md, "The pass"): kine's and etcd's databases are read by
     * the pass ({@code Pass.read}, {@code Pass.kine}, {@code Pass.form}, {@code Pass.history}), a live kine followed
     * through {@code KineLive}, kine's format written through {@code KineOutput.Writer}: no tool holds an SQL connection
     * of its own, nor the readers of SQLite's or bbolt's pages.
     */
    @Test
    void noToolOpensAStoreItself() {
        noClasses().that().resideInAnyPackage("dev.walkit.verify..", "dev.walkit.doctor..", "dev.walkit.recover..", "dev.walkit.migrate..", "dev.walkit.cli..")
                .should().dependOnClassesThat().resideInAnyPackage("java.sql..", "dev.walkit.format.sqlite..", "dev.walkit.format.bbolt..")
                .orShould().dependOnClassesThat().haveNameMatching("dev\\.walkit\\.format\\.(kine\\.KineDb|etcd\\.EtcdDb)(\\$.*)?")
                .because("the pass opens the evidence once; the tools consume what it read")
                .check(classes);
    }

    /**
     * The tools read a store through the pass and speak of it through the account (docs/architecture.md, "The pass"):
     * none runs the replay itself, extends the account's listener, holds a key's state, or reaches the light replay or
     * the follower behind the pass ({@code Pass.read}, {@code Pass.history}, {@code Pass.replay}, {@code PolicyReplay},
     * {@code Follow}, {@code ReadBehind} are the ways in).
     */
    @Test
    void toolsUseThePassNeverTheReplaysInternals() {
        noClasses().that().resideInAnyPackage("dev.walkit.verify..", "dev.walkit.doctor..", "dev.walkit.recover..", "dev.walkit.migrate..", "dev.walkit.cli..")
                .should().dependOnClassesThat().haveNameMatching(
                        "dev\\.walkit\\.format\\.account\\.AccountListener(\\$.*)?"
                                + "|dev\\.walkit\\.format\\.replay\\.(KeyState|KeyIndex|KeyTable|KeyVersions|Replay|Replayer|CleanReplay|CleanScan|BatchReader"
                                + "|BatchTransaction|RecordBatch|FormReplay|WalFollower|ValueArena|StateDigest|Rules|SnapshotPrefix)(\\$.*)?")
                .because("the pass is the one way a tool reads a store; the replay is its private strategy")
                .check(classes);
    }

    /** No two packages of any module import each other, directly or round about (doctor and doctor.serve did). */
    @Test
    void noPackageCycleAnywhere() {
        slices().matching("dev.walkit.(**)").should().beFreeOfCycles().check(classes);
    }

    @Test
    void theEnginesPackagesHaveNoCycle() {
        slices().matching("dev.walkit.format.(*)..").should().beFreeOfCycles().check(classes);
    }

    @Test
    void noToolKnowsAnother() {
        slices().matching("dev.walkit.(verify|doctor|recover|migrate)..").should().notDependOnEachOther().check(classes);
    }
}
