package io.kscale.partitioner;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestFactory;

/**
 * A property: a {@link TestFactory} that returns {@link Seeds#tries}, tagged {@value #TAG} so that
 * {@code -Pfresh-seeds} runs the properties alone, each from a fresh seed.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@TestFactory
@Tag(Property.TAG)
@interface Property {

    String TAG = "property";
}
